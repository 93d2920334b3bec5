import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web';
import { escapeFormula } from '../formula';

export interface CsvWriterOptions {
  /** Bytes queued before write() waits for the reader; default 1 MiB. */
  highWaterMarkBytes?: number;
}

/** Quoting is always allowed by RFC 4180; quoting the other common delimiters too keeps a re-upload unambiguous. */
const NEEDS_QUOTES = /[",\r\n;\t|]/;

/**
 * Formats one row as an RFC 4180 line ending in CRLF, every cell escaped against formula injection. A row made
 * of one empty cell is written as `""` so that it does not read back as a blank line.
 */
export function formatCsvRow(cells: readonly string[]): string {
  if (cells.length === 1 && cells[0] === '') return '""\r\n';
  return `${formatCsvFields(cells)}\r\n`;
}

/** One cell as a field of a line: escaped against formula injection, quoted when it needs it. */
export function formatCsvField(cell: string): string {
  const escaped = escapeFormula(cell);
  return NEEDS_QUOTES.test(escaped) ? `"${escaped.replace(/"/g, '""')}"` : escaped;
}

/**
 * Cells as the fields of a line, separated by commas, without the line end: a part of a line that another part
 * (formatted the same way) completes. formatCsvRow is the whole line.
 */
export function formatCsvFields(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ',';
    line += formatCsvField(cells[i]);
  }
  return line;
}

/**
 * A streaming CSV writer (RFC 4180, CRLF, UTF-8 without BOM, formula escaping on every cell). Hand `readable`
 * to whatever consumes the bytes (an object-store put) or call pipeTo(nodeWritable), then write batches of rows
 * and end(). write() waits while more than the high-water mark is queued, so memory stays bounded as long as
 * the consumer reads; it rejects once the consumer has cancelled.
 */
export class CsvWriter {
  readonly readable: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private waiters: (() => void)[] = [];
  private cancelled: { reason: unknown } | undefined;
  private aborted: { reason: unknown } | undefined;
  private ended = false;
  private rows = 0;
  private bytes = 0;

  constructor(options: CsvWriterOptions = {}) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wake(),
        cancel: (reason: unknown) => {
          this.cancelled = { reason };
          this.wake();
        },
      },
      { highWaterMark: options.highWaterMarkBytes ?? 1024 * 1024, size: (chunk) => chunk.byteLength },
    );
  }

  get rowsWritten(): number {
    return this.rows;
  }

  get bytesWritten(): number {
    return this.bytes;
  }

  /** Queues a batch of rows; resolves when there is room for more. */
  async write(rows: readonly (readonly string[])[]): Promise<void> {
    this.assertOpen();
    let text = '';
    for (const row of rows) text += formatCsvRow(row);
    await this.writeFormatted(text, rows.length);
  }

  /**
   * Queues `count` rows formatted already (formatCsvRow, or lines put together from formatCsvFields parts and
   * ending in CRLF); resolves when there is room for more.
   */
  async writeFormatted(text: string, count: number): Promise<void> {
    this.assertOpen();
    if (text) {
      const chunk = this.encoder.encode(text);
      this.controller.enqueue(chunk);
      this.rows += count;
      this.bytes += chunk.byteLength;
    }
    while (!this.cancelled && (this.controller.desiredSize ?? 1) <= 0) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.assertOpen();
  }

  /** Finishes the file; the reader sees the end once it has read everything queued. */
  async end(): Promise<void> {
    this.assertOpen();
    this.ended = true;
    this.controller.close();
  }

  /** Fails the stream, so a consumer such as an object-store put does not store a truncated file. */
  abort(reason: unknown): void {
    if (this.ended || this.cancelled) return;
    this.ended = true;
    this.aborted = { reason };
    this.controller.error(reason);
    this.wake();
  }

  /** Pipes the bytes into a Node writable; resolves when it has finished. Call before writing. */
  pipeTo(destination: Writable | NodeJS.WritableStream): Promise<void> {
    return pipeline(Readable.fromWeb(this.readable), destination);
  }

  private assertOpen(): void {
    if (this.cancelled)
      throw new Error('CsvWriter: the reader cancelled the stream', { cause: this.cancelled.reason });
    if (this.aborted) throw new Error('CsvWriter: the stream was aborted', { cause: this.aborted.reason });
    if (this.ended) throw new Error('CsvWriter: the stream has ended');
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

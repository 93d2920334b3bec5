import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ChunkItemResult } from '@emailverify/contracts';
import {
  CsvWriter,
  readRowBatches,
  type ResultCells,
  resultFields,
  resultHeader,
  resultLine,
} from '@emailverify/files';
import { JetStreamKit } from '@emailverify/messaging';
import { fallbackResult, syntaxFailureResult } from '@emailverify/verification';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { ChunksRepository } from './chunks.repository';
import type { JobRow } from './jobs.repository';
import { RepeatBits, type RowKey, rowKey } from './row-key';

const BATCH = 2_000;

/** Where the result file's status column is, for filtered downloads. */
export function statusColumnIndex(job: Pick<JobRow, 'headers' | 'preserve_original'>): number {
  return (job.preserve_original ? job.headers.length : 0) + 1;
}

export function resultObjectName(jobId: string): string {
  return `results/${jobId}.csv`;
}

/** Where copies of the rows verified so far are kept while they are downloaded. */
export const PARTIAL_COPY_PREFIX = 'partial/';

/** A copy of the rows verified so far, made for one request (each its own, so requests never share one). */
export function partialObjectName(jobId: string): string {
  return `${PARTIAL_COPY_PREFIX}${jobId}/${randomUUID()}.csv`;
}

/**
 * Builds the result file: the upload is read again, row by row in input order. Addresses meet the merge in
 * the order job creation numbered them, so the chunks are read in order alongside the file and each row's
 * result is the next one; only the results of addresses that occur again later are kept in memory.
 */
@Injectable()
export class ResultWriter {
  constructor(
    private readonly repo: ChunksRepository,
    private readonly kit: JetStreamKit,
    @Inject(FILE_JOBS_CONFIG) private readonly config: Readonly<FileJobsConfig>,
  ) {}

  /**
   * Writes the result file and returns its object name. Without `follow` every chunk must have been answered.
   * With it, the merge may start while chunks are still being verified: it waits for each chunk's results in
   * turn, and gives up with MergeAbandoned (storing nothing) as soon as `follow.active()` says the job stopped.
   * An aborted `signal` (the merge lost its lease) gives up the same way.
   */
  async write(job: JobRow, options: WriteOptions = {}): Promise<string> {
    return this.store(job, resultObjectName(job.id), options);
  }

  /**
   * Writes the rows verified so far of a job still being verified into an object of its own and returns its
   * name: the longest prefix of the input rows whose results are all in (their chunks done or given up), each
   * row as the result file has it, so it is always a prefix of the final file. The caller removes the object.
   */
  async writePartial(job: JobRow): Promise<string> {
    return this.store(job, partialObjectName(job.id), { prefix: true });
  }

  private async store(job: JobRow, name: string, options: CursorOptions): Promise<string> {
    const store = await this.kit.objectStore('files');
    const upload = await this.kit.getObject('files', job.upload_object);
    if (!upload) throw new Error(`upload ${job.upload_object} of job ${job.id} is missing`);
    const writer = new CsvWriter();
    const stored = this.kit.putObject(store, name, writer.readable);
    // A put that fails (NATS away) must not leave the producer waiting for room that never comes.
    stored.catch((err: unknown) => writer.abort(err));
    const produced = this.produce(job, upload.data, writer, options);
    // A producer that fails aborts the writer, which fails the put: wait for both (the put removes what it
    // stored), then report the producer's error, which says why.
    const [put, made] = await Promise.allSettled([stored, produced]);
    if (made.status === 'rejected') throw made.reason;
    if (put.status === 'rejected') throw put.reason;
    return name;
  }

  /**
   * Writes the header and every row's line (with `prefix`, up to the first row whose result is not in yet),
   * then ends the file; any failure aborts the writer.
   */
  private async produce(
    job: JobRow,
    source: AsyncIterable<Uint8Array>,
    writer: CsvWriter,
    options: CursorOptions,
  ): Promise<void> {
    try {
      const width = job.headers.length;
      const preserve = job.preserve_original;
      const rows = new RowResults(job, new OutcomeCursor(this.repo, job.id, job.total_chunks, options));
      const lines = new LineBatch(writer);
      await writer.write([resultHeader(job.headers, preserve, job.enrich)]);
      let first = true;
      reading: for await (const batch of readRowBatches(source, job.format, this.readLimits())) {
        if (options.signal?.aborted) throw new MergeAbandoned(job.id);
        for (const cells of batch) {
          const header = first && job.has_header;
          first = false;
          if (header) continue;
          // Awaited only when the row's address starts a chunk not loaded yet: once per chunk, not per row.
          if (rows.needsChunk()) await rows.loadChunk();
          const fields = rows.fieldsOf(cells);
          // Only with `prefix`: the row's result is not in yet, so the prefix ends before it.
          if (fields === undefined) break reading;
          if (lines.add(resultLine(cells, width, fields, preserve))) await lines.flush();
        }
      }
      await lines.flush();
      if (!options.prefix) rows.checkAllWritten();
      await writer.end();
    } catch (err) {
      writer.abort(err);
      throw err;
    }
  }

  private readLimits() {
    return {
      maxLineBytes: this.config.FILE_MAX_LINE_BYTES,
      maxUnzippedBytes: this.config.FILE_MAX_UNZIPPED_BYTES,
    };
  }
}

/** Result lines collected as one text, handed to the writer BATCH rows at a time. */
class LineBatch {
  private text = '';
  private count = 0;

  constructor(private readonly writer: CsvWriter) {}

  /** Adds a line; true when the batch is full and should be flushed. */
  add(line: string): boolean {
    this.text += line;
    this.count += 1;
    return this.count >= BATCH;
  }

  async flush(): Promise<void> {
    if (this.count === 0) return;
    const { text, count } = this;
    this.text = '';
    this.count = 0;
    await this.writer.writeFormatted(text, count);
  }
}

/**
 * The verification cells of each row in input order. Addresses meet the rows in the order job creation
 * numbered them (by their first row), so each address's first row takes the next result in chunk order; the
 * results of addresses that occur again further down are kept, as the cells formatted for the file.
 */
class RowResults {
  /** The number of the address whose first row comes next. */
  private ordinal = 0;
  private current?: LoadedChunk;
  /** Results of addresses that occur again further down, as the cells each of their rows ends with. */
  private readonly retained = new Map<string, string>();

  constructor(
    private readonly job: JobRow,
    private readonly chunks: OutcomeCursor,
  ) {}

  /** Whether the next address's result is in a chunk not loaded yet (loadChunk). */
  needsChunk(): boolean {
    return this.ordinal < this.job.billable_emails && this.current?.chunk !== this.chunkOf(this.ordinal);
  }

  async loadChunk(): Promise<void> {
    const chunk = this.chunkOf(this.ordinal);
    // Not answered yet (a prefix only): remembered as such, so the rows before its first address are written.
    this.current = (await this.chunks.get(chunk)) ?? {
      chunk,
      results: null,
      repeated: null,
      unanswered: true,
    };
  }

  /**
   * The verification cells of a row, formatted (resultFields); undefined when its address is first met here and
   * its chunk is not answered yet (only when writing a prefix).
   */
  fieldsOf(cells: readonly string[]): string | undefined {
    const expected = this.expected();
    const cellText = (cells[this.job.column_index] ?? '').trim();
    // A cell that is that address already in normalised form needs no parse (parsing it would give the same
    // key), and is the address's first row (addresses are numbered by their first row): the common case.
    const next = expected !== undefined && cellText === expected.email;
    const cell: RowKey = next ? { kind: 'address', key: cellText } : rowKey(cellText);
    if (cell.kind === 'empty') return this.format(syntaxFailureResult('', 'missing_email'));
    if (cell.kind === 'invalid') return this.format(syntaxFailureResult(cell.key, 'invalid_syntax'));
    return (next ? undefined : this.retained.get(cell.key)) ?? this.firstRowOf(cell.key, expected);
  }

  /** Throws unless every address of the job had its row. */
  checkAllWritten(): void {
    if (this.ordinal !== this.job.billable_emails) {
      throw new Error(
        `job ${this.job.id}: the file held ${this.ordinal} addresses, the job ${this.job.billable_emails}`,
      );
    }
  }

  /** The result of the address whose first row comes next; undefined once all were written or none came. */
  private expected(): ResultCells | undefined {
    if (this.ordinal >= this.job.billable_emails) return undefined;
    return this.current?.results?.[this.ordinal % this.job.chunk_size];
  }

  /** An address's first row: it is the next one in chunk order. */
  private firstRowOf(key: string, expected: ResultCells | undefined): string | undefined {
    const { job, ordinal } = this;
    if (ordinal >= job.billable_emails) {
      throw new Error(`job ${job.id}: the file holds more addresses than the job's ${ordinal}`);
    }
    if (this.current?.unanswered) return undefined;
    this.ordinal += 1;
    const position = ordinal % job.chunk_size;
    // No result: its chunk was given up after every delivery.
    const result: ResultCells = expected ?? fallbackResult(key);
    if (result.email !== key) {
      throw new Error(
        `job ${job.id}: result ${position} of chunk ${this.chunkOf(ordinal)} is for ${result.email}, the row holds ${key}`,
      );
    }
    const fields = this.format(result);
    // Keyed by the result's own copy of the address: the row's cell is a slice of the text the parser read, and
    // keeping it would keep that whole piece of the file until the merge ends.
    if (this.current!.repeated?.has(position) ?? true) this.retained.set(result.email, fields);
    return fields;
  }

  /** A result's cells: a chunk result carries every one (and what it cost, which the file does not show). */
  private format(result: ResultCells): string {
    return resultFields(result, this.job.enrich);
  }

  private chunkOf(ordinal: number): number {
    return Math.floor(ordinal / this.job.chunk_size);
  }
}

interface LoadedChunk {
  chunk: number;
  results: ChunkItemResult[] | null;
  repeated: RepeatBits | null;
  /** Not answered yet: what a prefix stops at. */
  unanswered?: true;
}

export interface WriteOptions {
  follow?: FollowOptions;
  /** Aborted when the merge must give up (it lost its hold on the job). */
  signal?: AbortSignal;
}

/** How the chunks are read: every one (a finished job), following a running job, or up to an unanswered one. */
interface CursorOptions extends WriteOptions {
  /** Only answered chunks, and no waiting: the first chunk not answered ends the file (writePartial). */
  prefix?: boolean;
}

export interface FollowOptions {
  /** Whether the job is still being verified; asked whenever the next chunk is not answered yet. */
  active: () => Promise<boolean>;
  /** How long to wait before asking again for a chunk that was not answered yet. */
  pollMs: number;
}

/** A merge that followed a job's verification stopped because the job stopped (paused, cancelled, failed). */
export class MergeAbandoned extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} stopped while its result file was being written`);
  }
}

/**
 * A job's chunk outcomes in chunk order, a few per query, the next few fetched while these are used. Only
 * ever asked for the same or a later chunk. When following a running job, a chunk that is not answered yet
 * is waited for; the answered chunks after it that were read meanwhile are kept, and not read again.
 */
class OutcomeCursor {
  /** Chunks read and not used yet (by number). */
  private readonly loaded = new Map<number, LoadedChunk>();
  /** A read of the next few chunks under way. */
  private ahead?: Promise<unknown>;

  private readonly follow: FollowOptions | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly prefix: boolean;

  constructor(
    private readonly repo: ChunksRepository,
    private readonly jobId: string,
    private readonly total: number,
    options: CursorOptions,
    private readonly perQuery = 8,
  ) {
    this.follow = options.follow;
    this.signal = options.signal;
    this.prefix = options.prefix ?? false;
  }

  /** The chunk's outcome; undefined only for a prefix, when the chunk is not answered yet. */
  async get(chunk: number): Promise<LoadedChunk | undefined> {
    for (;;) {
      if (this.signal?.aborted) throw new MergeAbandoned(this.jobId);
      for (const n of this.loaded.keys()) if (n < chunk) this.loaded.delete(n);
      const found = this.loaded.get(chunk);
      if (found) {
        this.readAhead(chunk);
        return found;
      }
      if (chunk >= this.total) throw new Error(`job ${this.jobId}: chunk ${chunk} is missing`);
      // A read under way may bring it; otherwise it is read now, with the few after it.
      if (this.ahead) await this.ahead;
      if (!this.loaded.has(chunk)) await this.read(chunk);
      if (this.loaded.has(chunk)) continue;
      if (this.prefix) return undefined;
      if (!this.follow) throw new Error(`job ${this.jobId}: chunk ${chunk} is missing`);
      await new Promise((resolve) => setTimeout(resolve, this.follow!.pollMs));
      if (!(await this.follow.active())) throw new MergeAbandoned(this.jobId);
    }
  }

  /** Starts reading the chunks after the last one read, unless enough are at hand or a read is under way. */
  private readAhead(chunk: number): void {
    if (this.ahead || this.loaded.size > this.perQuery / 2) return;
    let last = chunk;
    for (const n of this.loaded.keys()) last = Math.max(last, n);
    if (last + 1 >= this.total) return;
    const reading = this.read(last + 1).finally(() => {
      if (this.ahead === reading) this.ahead = undefined;
    });
    // A read still running when the merge gives up must not become an unhandled rejection; one that failed
    // is read again when its chunks are asked for.
    this.ahead = reading.catch(() => undefined);
  }

  /** Reads up to perQuery chunks from `from` (only answered ones when following or writing a prefix), leaving out those at hand. */
  private async read(from: number): Promise<void> {
    const held = [...this.loaded.keys()].filter((n) => n >= from && n < from + this.perQuery);
    const rows = await this.repo.chunkOutcomes(this.jobId, from, this.perQuery, {
      except: held,
      answeredOnly: this.follow !== undefined || this.prefix,
    });
    for (const r of rows) {
      this.loaded.set(r.chunk, {
        chunk: r.chunk,
        results: r.results,
        repeated: r.repeated ? RepeatBits.from(r.repeated) : null,
      });
    }
  }
}

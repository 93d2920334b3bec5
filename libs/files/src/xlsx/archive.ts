import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { FileRejected } from '../errors';
import type { ReadLimits } from '../limits';
import { MIB } from '../limits';
import { absurdRatio, notXlsx, tooMuchUnzipped } from './rejections';

/** Real workbooks hold tens of parts, a few hundred with many sheets and images. */
const MAX_ENTRIES = 10_000;
/** Entries this small cannot do harm whatever their ratio (an empty sheet compresses very well). */
const RATIO_FLOOR_BYTES = MIB;

type ZipLimits = Pick<ReadLimits, 'maxUnzippedBytes' | 'maxCompressionRatio'>;

/**
 * The parts of an .xlsx (a zip), read on demand, with the zip-bomb guards: declared sizes and ratios are
 * checked before a part is inflated, and the bytes actually inflated are counted against the same budget.
 */
export class XlsxArchive {
  private inflated = 0;

  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly entries: Map<string, yauzl.Entry>,
    private readonly limits: ZipLimits,
  ) {}

  static async open(path: string, limits: ZipLimits): Promise<XlsxArchive> {
    const zip = await asRejection(() =>
      yauzl.openPromise(path, {
        lazyEntries: true,
        autoClose: false,
        validateEntrySizes: true,
        strictFileNames: false,
      }),
    );
    try {
      if (zip.entryCount > MAX_ENTRIES) throw notXlsx(`it holds ${zip.entryCount} parts`);
      const entries = new Map<string, yauzl.Entry>();
      await asRejection(async () => {
        for await (const entry of zip.eachEntry()) entries.set(partKey(entry.fileName), entry);
      });
      return new XlsxArchive(zip, entries, limits);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  has(part: string): boolean {
    return this.entries.has(partKey(part));
  }

  /** Inflated bytes of one part, in the pieces the inflater produces. */
  async *bytes(part: string): AsyncGenerator<Uint8Array> {
    const entry = this.entries.get(partKey(part));
    if (!entry) throw notXlsx(`its part ${part} is missing`);
    this.checkDeclared(part, entry);
    const stream: Readable = await asRejection(() => this.zip.openReadStreamPromise(entry));
    try {
      const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      for (;;) {
        const next = await asRejection(() => iterator.next());
        if (next.done) return;
        this.inflated += next.value.byteLength;
        if (this.inflated > this.limits.maxUnzippedBytes) throw tooMuchUnzipped(this.limits.maxUnzippedBytes);
        yield next.value;
      }
    } finally {
      stream.destroy();
    }
  }

  /** A small part (relationships, workbook) as text, refused past `maxBytes`. */
  async text(part: string, maxBytes: number): Promise<string> {
    const entry = this.entries.get(partKey(part));
    if (entry && entry.uncompressedSize > maxBytes) throw notXlsx(`its part ${part} is too large`);
    const decoder = new TextDecoder('utf-8');
    let text = '';
    for await (const piece of this.bytes(part)) text += decoder.decode(piece, { stream: true });
    return text + decoder.decode();
  }

  close(): void {
    this.zip.close();
  }

  private checkDeclared(part: string, entry: yauzl.Entry): void {
    if (entry.isEncrypted()) throw notXlsx('it is encrypted');
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw notXlsx(`its part ${part} uses an unsupported compression method`);
    }
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (entry.uncompressedSize > RATIO_FLOOR_BYTES && ratio > this.limits.maxCompressionRatio) {
      throw absurdRatio(part, ratio);
    }
    if (this.inflated + entry.uncompressedSize > this.limits.maxUnzippedBytes) {
      throw tooMuchUnzipped(this.limits.maxUnzippedBytes);
    }
  }
}

/** Part names are case-insensitive in OPC, and some writers add a leading slash. */
function partKey(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}

/** yauzl's errors (bad signatures, sizes that lie, truncated data) all mean the same thing to a customer. */
async function asRejection<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FileRejected) throw error;
    throw notXlsx();
  }
}

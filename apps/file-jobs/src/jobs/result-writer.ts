import type { ChunkItemResult } from '@emailverify/contracts';
import { CsvWriter, readRows, resultHeader, resultRow } from '@emailverify/files';
import type { JetStreamKit } from '@emailverify/messaging';
import { parseAddress } from '@emailverify/verification';
import type { FileJobsConfig } from '../config';
import { syntaxFailure } from './job-view';
import type { JobRow, JobsRepository } from './jobs.repository';

const BATCH = 2_000;

/** Where the result file's status column is, for filtered downloads. */
export function statusColumnIndex(job: Pick<JobRow, 'headers' | 'preserve_original'>): number {
  return (job.preserve_original ? job.headers.length : 0) + 1;
}

export function resultObjectName(jobId: string): string {
  return `results/${jobId}.csv`;
}

/**
 * Builds the result file: the upload is read again, row by row in input order, and each row gets the result
 * of its address (looked up in batches), so memory stays bounded whatever the file's size.
 */
export class ResultWriter {
  constructor(
    private readonly repo: JobsRepository,
    private readonly kit: JetStreamKit,
    private readonly config: Readonly<FileJobsConfig>,
  ) {}

  async write(job: JobRow): Promise<string> {
    const store = await this.kit.objectStore('files');
    const upload = await store.get(job.upload_object);
    if (!upload) throw new Error(`upload ${job.upload_object} of job ${job.id} is missing`);
    const name = resultObjectName(job.id);
    const writer = new CsvWriter();
    const stored = store.put({ name }, writer.readable);
    const produced = this.produce(job, upload.data, writer);
    await Promise.all([stored, produced]);
    return name;
  }

  private async produce(job: JobRow, source: AsyncIterable<Uint8Array>, writer: CsvWriter): Promise<void> {
    try {
      const width = job.headers.length;
      await writer.write([resultHeader(job.headers, job.preserve_original)]);
      let first = true;
      let batch: string[][] = [];
      const flush = async () => {
        const keys = batch.map((cells) => keyOf(cells[job.column_index]));
        const results = await this.repo.results(
          job.id,
          keys.filter((k): k is string => k !== undefined),
        );
        const rows = batch.map((cells, i) => {
          const key = keys[i];
          const result: ChunkItemResult =
            key === undefined ? syntaxFailure('') : (results.get(key) ?? unverified(key));
          // A chunk result carries every result-file cell (and what it cost, which the file does not show).
          return resultRow(cells, width, result, job.preserve_original);
        });
        await writer.write(rows);
        batch = [];
      };
      const limits = {
        maxLineBytes: this.config.FILE_MAX_LINE_BYTES,
        maxUnzippedBytes: this.config.FILE_MAX_UNZIPPED_BYTES,
      };
      for await (const cells of readRows(source, job.format, limits)) {
        if (first && job.has_header) {
          first = false;
          continue;
        }
        first = false;
        batch.push(cells);
        if (batch.length >= BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      await writer.end();
    } catch (err) {
      writer.abort(err);
      throw err;
    }
  }
}

function keyOf(cell: string | undefined): string | undefined {
  const value = (cell ?? '').trim();
  if (!value) return undefined;
  const parsed = parseAddress(value);
  return parsed.ok ? parsed.email : value;
}

/** An address whose chunk failed after every retry: unknown, free, worth retrying. */
function unverified(email: string): ChunkItemResult {
  return { ...syntaxFailure(email), status: 'unknown', reason: 'verification_failed', score: 0.5 };
}

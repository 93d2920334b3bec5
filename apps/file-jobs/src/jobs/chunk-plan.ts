import { DomainError } from '@emailverify/contracts';
import type { NewChunk } from './jobs.repository';
import { RepeatBits, rowKey } from './row-key';

export interface ChunkPlanOptions {
  /** Addresses per chunk. */
  chunkSize: number;
  /** Distinct cells (addresses and non-addresses) a file may hold. */
  maxEmails: number;
}

export interface ChunkPlan {
  /** Rows read (the header, when there is one, is not a row). */
  totalRows: number;
  /** Rows whose cell is not empty. */
  estimated: number;
  /** Distinct cells: the well-formed addresses (by normalised form) and the cells that are no address. */
  unique: number;
  /** Distinct well-formed addresses: verified and charged, in chunk order. */
  billable: number;
  chunks: NewChunk[];
}

/**
 * Plans a job's chunks from its rows' address cells: each distinct well-formed address goes once to a chunk, in
 * first-seen order, with a bit saying whether it occurs again further down the file; cells that are no address
 * count as distinct but go in no chunk (they are invalid and free without any verification). No I/O but
 * reading `batches`.
 * @param column where the address cell of each row is
 * @throws DomainError PAYLOAD_TOO_LARGE when the rows hold more than `maxEmails` distinct cells
 */
export async function planChunks(
  batches: AsyncIterable<readonly string[][]> | Iterable<readonly string[][]>,
  column: number,
  { chunkSize, maxEmails }: ChunkPlanOptions,
): Promise<ChunkPlan> {
  const seen = new Map<string, number>(); // key -> ordinal among the verifiable addresses, -1 for a non-address
  const chunks: NewChunk[] = [];
  let totalRows = 0;
  let estimated = 0;
  let billable = 0;
  for await (const batch of batches) {
    for (const cells of batch) {
      totalRows += 1;
      const cell = rowKey(cells[column]);
      if (cell.kind === 'empty') continue;
      estimated += 1;
      const ordinal = seen.get(cell.key);
      if (ordinal !== undefined) {
        if (ordinal >= 0) chunks[Math.floor(ordinal / chunkSize)]!.repeated.set(ordinal % chunkSize);
        continue;
      }
      if (seen.size >= maxEmails) {
        throw new DomainError('PAYLOAD_TOO_LARGE', `The file holds more than ${maxEmails} addresses`);
      }
      if (cell.kind === 'invalid') {
        seen.set(cell.key, -1);
        continue;
      }
      seen.set(cell.key, billable);
      if (billable % chunkSize === 0) chunks.push({ emails: [], repeated: new RepeatBits(chunkSize) });
      chunks.at(-1)!.emails.push(cell.key);
      billable += 1;
    }
  }
  return { totalRows, estimated, unique: seen.size, billable, chunks };
}

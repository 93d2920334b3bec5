import { DomainError } from '@emailverify/contracts';
import type { NewChunk } from './jobs.repository';
import { RepeatBits, rowKey } from './row-key';
import { SeenCells, TextPool } from './seen-cells';

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
  // The addresses, a chunk's worth per segment (joined by line feeds, which no address holds: the chunk's text
  // as it is stored), and the distinct cells that are no address.
  const addresses = new TextPool(chunkSize, '\n');
  const others = new TextPool(4096);
  const seen = new SeenCells(addresses, others);
  const repeats: RepeatBits[] = [];
  let totalRows = 0;
  let estimated = 0;
  for await (const batch of batches) {
    for (const cells of batch) {
      totalRows += 1;
      const cell = rowKey(cells[column]);
      if (cell.kind === 'empty') continue;
      estimated += 1;
      const address = cell.kind === 'address';
      const ordinal = seen.find(cell.key, address);
      if (ordinal !== undefined) {
        if (ordinal >= 0) repeats[Math.floor(ordinal / chunkSize)]!.set(ordinal % chunkSize);
        continue;
      }
      if (seen.size >= maxEmails) {
        throw new DomainError('PAYLOAD_TOO_LARGE', `The file holds more than ${maxEmails} addresses`);
      }
      if (!address) {
        seen.add(cell.key, false, others.add(cell.key));
        continue;
      }
      if (addresses.size % chunkSize === 0) repeats.push(new RepeatBits(chunkSize));
      seen.add(cell.key, true, addresses.add(cell.key));
    }
  }
  const billable = addresses.size;
  const chunks: NewChunk[] = repeats.map((repeated, i) => ({
    emails: addresses.segmentText(i),
    size: Math.min(chunkSize, billable - i * chunkSize),
    repeated,
  }));
  return { totalRows, estimated, unique: seen.size, billable, chunks };
}

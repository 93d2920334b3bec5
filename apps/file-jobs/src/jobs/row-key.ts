import { parseAddress } from '@emailverify/verification';

/**
 * What a row's address cell stands for. Job creation and the merge both read cells through this one
 * function, so the merge meets the addresses in exactly the order and form the job stored them.
 * - `address`: a well-formed address, keyed by its normalised form; verified, billable.
 * - `invalid`: a non-empty cell that is not an address, keyed by the trimmed cell; invalid, free.
 * - `empty`: nothing in the cell; `missing_email`, free, and not counted as an address.
 */
export type RowKey = { kind: 'address'; key: string } | { kind: 'invalid'; key: string } | { kind: 'empty' };

export function rowKey(cell: string | undefined): RowKey {
  const value = (cell ?? '').trim();
  if (!value) return { kind: 'empty' };
  const parsed = parseAddress(value);
  return parsed.ok ? { kind: 'address', key: parsed.email } : { kind: 'invalid', key: value };
}

/**
 * Bit per address of a chunk (by its position in the chunk): set when the address occurs again further down
 * the file, so that the merge keeps that address's result at hand and nothing else.
 */
export class RepeatBits {
  private readonly bits: Uint8Array;

  constructor(size: number) {
    this.bits = new Uint8Array(Math.ceil(size / 8));
  }

  static from(bytes: Uint8Array): RepeatBits {
    const bits = new RepeatBits(bytes.length * 8);
    bits.bits.set(bytes);
    return bits;
  }

  set(position: number): void {
    this.bits[position >> 3]! |= 1 << (position & 7);
  }

  has(position: number): boolean {
    return ((this.bits[position >> 3] ?? 0) & (1 << (position & 7))) !== 0;
  }

  bytes(): Uint8Array {
    return this.bits;
  }
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFormula } from '../formula';
import { readRows } from '../read-rows';
import { collect } from '../testing/helpers';
import { readCsv } from './read-csv';
import { CsvWriter } from './writer';

/** Cells full of what breaks naive CSV: quotes, delimiters, CR/LF, formula triggers, astral characters. */
const tricky = fc.constantFrom(
  '"',
  ',',
  '\r',
  '\n',
  '\r\n',
  '=',
  '+',
  '-',
  '@',
  '\t',
  "'",
  ' ',
  ';',
  '|',
  'é',
  '😀',
  '中',
);
const cellArb = fc
  .array(fc.oneof(tricky, fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 6 })
  .map((parts) => parts.join(''));

/** Writes rows with CsvWriter, in batches, and returns the pieces the readable produced. */
async function written(rows: string[][], batch: number): Promise<Uint8Array[]> {
  const writer = new CsvWriter({ highWaterMarkBytes: 64 });
  const reading = collect(writer.readable);
  for (let i = 0; i < rows.length; i += batch) await writer.write(rows.slice(i, i + batch));
  await writer.end();
  return reading;
}

/** Re-cuts bytes at arbitrary places, as a network would. */
function recut(pieces: Uint8Array[], size: number): Uint8Array[] {
  const all = Buffer.concat(pieces);
  const out: Uint8Array[] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size));
  return out;
}

async function* from(pieces: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* pieces;
}

describe('CSV round trips', () => {
  it('CsvWriter then readCsv gives back every cell, formula-escaped', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cellArb, { minLength: 1, maxLength: 5 }), { maxLength: 20 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 50 }),
        async (rows, batch, cut) => {
          const bytes = recut(await written(rows, batch), cut);
          expect(await collect(readCsv(from(bytes)))).toEqual(rows.map((row) => row.map(escapeFormula)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('CsvWriter then readRows (delimiter detection, as for a re-uploaded result) gives back every cell', async () => {
    // readRows guesses the delimiter and skips blank rows, so the rows here have a fixed width of two or more
    // and at least one non-blank cell, as any table a customer would upload; everything else stays arbitrary.
    const width = fc.integer({ min: 2, max: 5 });
    const table = width.chain((w) =>
      fc.array(
        fc
          .array(cellArb, { minLength: w, maxLength: w })
          .filter((row) => row.some((cell) => cell.trim() !== '' && !cell.startsWith('\uFEFF'))),
        { minLength: 1, maxLength: 15 },
      ),
    );
    await fc.assert(
      fc.asyncProperty(table, fc.integer({ min: 1, max: 50 }), async (rows, cut) => {
        const header = rows[0].map((_, i) => `column ${i + 1}`);
        const bytes = recut(await written([header, ...rows], 4), cut);
        expect(await collect(readRows(from(bytes), 'csv'))).toEqual([
          header,
          ...rows.map((row) => row.map(escapeFormula)),
        ]);
      }),
      { numRuns: 300 },
    );
  });
});

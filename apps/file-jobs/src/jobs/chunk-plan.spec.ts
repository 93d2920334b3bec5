import { DomainError } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { type ChunkPlan, planChunks } from './chunk-plan';

/** Rows of one cell each, in batches of `per` rows. */
function batches(cells: string[], per = 2): string[][][] {
  const out: string[][][] = [];
  for (let i = 0; i < cells.length; i += per) out.push(cells.slice(i, i + per).map((cell) => [cell]));
  return out;
}

/** A plan's chunks as their addresses and the positions whose address occurs again. */
function chunksOf(plan: ChunkPlan): Array<{ emails: string[]; repeated: number[] }> {
  return plan.chunks.map((c) => {
    const emails = c.emails.split('\n');
    expect(emails.length).toBe(c.size);
    return { emails, repeated: emails.flatMap((_, i) => (c.repeated.has(i) ? [i] : [])) };
  });
}

describe('planChunks', () => {
  it('puts each distinct address once in a chunk, in first-seen order, marking those that occur again', async () => {
    const plan = await planChunks(
      batches([
        'a@files.test',
        ' b@Files.TEST ',
        'not an address',
        '',
        'c@files.test',
        'd@files.test',
        'e@files.test',
        'slow@files.test',
        'e@FILES.test',
        'f@files.test',
        'f@files.test',
        'a@files.test',
        'not an address',
      ]),
      0,
      { chunkSize: 3, maxEmails: 100 },
    );
    expect(plan).toMatchObject({ totalRows: 13, estimated: 12, unique: 8, billable: 7 });
    expect(chunksOf(plan)).toEqual([
      { emails: ['a@files.test', 'b@files.test', 'c@files.test'], repeated: [0] },
      { emails: ['d@files.test', 'e@files.test', 'slow@files.test'], repeated: [1] },
      { emails: ['f@files.test'], repeated: [0] },
    ]);
  });

  it('reads the given column, and makes no chunk of rows without an address', async () => {
    const rows = [[['x', 'a@files.test']], [['y', 'not an address'], ['z']]];
    const plan = await planChunks(rows, 1, { chunkSize: 500, maxEmails: 100 });
    expect(plan).toMatchObject({ totalRows: 3, estimated: 2, unique: 2, billable: 1 });
    expect(chunksOf(plan)).toEqual([{ emails: ['a@files.test'], repeated: [] }]);
    expect(await planChunks([[['', '']]], 1, { chunkSize: 500, maxEmails: 100 })).toEqual({
      totalRows: 1,
      estimated: 0,
      unique: 0,
      billable: 0,
      chunks: [],
    });
  });

  it('refuses more distinct cells than allowed, counting cells that are no address but not repeats', async () => {
    const limits = { chunkSize: 2, maxEmails: 3 };
    const atLimit = ['a@files.test', 'bad', 'b@files.test', 'a@FILES.test', 'bad'];
    expect((await planChunks(batches(atLimit), 0, limits)).unique).toBe(3);
    const over = planChunks(batches([...atLimit, 'worse']), 0, limits);
    await expect(over).rejects.toBeInstanceOf(DomainError);
    await expect(over).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('reads a stream of batches', async () => {
    async function* stream() {
      yield* batches(['a@files.test', 'b@files.test', 'a@files.test']);
    }
    const plan = await planChunks(stream(), 0, { chunkSize: 1, maxEmails: 10 });
    expect(chunksOf(plan)).toEqual([
      { emails: ['a@files.test'], repeated: [0] },
      { emails: ['b@files.test'], repeated: [] },
    ]);
  });
});

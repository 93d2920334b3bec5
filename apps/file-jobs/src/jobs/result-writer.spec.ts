import type { ChunkItemResult, VerificationStatus } from '@emailverify/contracts';
import type { JetStreamKit } from '@emailverify/messaging';
import { fallbackResult } from '@emailverify/verification';
import { describe, expect, it } from 'vitest';
import { fileJobsConfigSchema } from '../config';
import type { ChunkOutcome, ChunksRepository } from './chunks.repository';
import { makeJobRow } from './job-row.fixture';
import { ResultWriter } from './result-writer';

/**
 * Rows in input order, three chunks of two addresses: bad cells and repeats fall between them, as the merge
 * meets them. Chunk 0: a@x.test, b@x.test; chunk 1: c@x.test, d@x.test; chunk 2: e@x.test, f@x.test.
 */
const UPLOAD = [
  'email,name',
  'a@x.test,A',
  'not-an-address,Bad',
  'b@x.test,B',
  'a@x.test,A again',
  ',Empty',
  'c@x.test,C',
  'b@x.test,B again',
  'd@x.test,D',
  'e@x.test,E',
  'not-either,Bad too',
  'c@x.test,C again',
  'f@x.test,F',
].join('\n');
const CHUNKS = [
  ['a@x.test', 'b@x.test'],
  ['c@x.test', 'd@x.test'],
  ['e@x.test', 'f@x.test'],
];

const job = makeJobRow({
  headers: ['email', 'name'],
  total_rows: 12,
  unique_emails: 6,
  billable_emails: 6,
  total_chunks: 3,
  chunk_size: 2,
});

function item(email: string, status: VerificationStatus): ChunkItemResult {
  return { ...fallbackResult(email), status, reason: 'accepted', creditsUsed: 1 };
}

/** A writer over the upload above, whose chunks in `answered` are answered (the others still being verified). */
function setup(answered: ReadonlySet<number>) {
  const outcome = (chunk: number): ChunkOutcome => ({
    chunk,
    // A chunk given up after every delivery has no results: its addresses read as unknown.
    results: chunk === 1 ? null : CHUNKS[chunk]!.map((email) => item(email, 'valid')),
    repeated: null,
  });
  const range = (from: number, count: number, except: readonly number[], only: (n: number) => boolean) =>
    CHUNKS.map((_, n) => n).filter((n) => n >= from && n < from + count && !except.includes(n) && only(n));
  const repo: Pick<ChunksRepository, 'chunkOutcomes'> = {
    chunkOutcomes: async (_id, from, count, { except = [], answeredOnly = false } = {}) =>
      range(from, count, except, (n) => !answeredOnly || answered.has(n)).map(outcome),
  };
  const stored = new Map<string, Promise<string>>();
  const kit = {
    objectStore: async () => ({}),
    getObject: async () => ({ data: new Blob([UPLOAD]).stream() }),
    putObject: (_store: unknown, name: string, data: ReadableStream<Uint8Array>) => {
      const text = new Response(data).text();
      stored.set(name, text);
      return text;
    },
  } as unknown as JetStreamKit;
  const config = fileJobsConfigSchema.parse({ DOWNLOAD_SIGNING_SECRET: 'writer-spec-download-secret' });
  const writer = new ResultWriter(repo as ChunksRepository, kit, config);
  const read = async (name: string) => (await stored.get(name)!).trimEnd().split(/\r?\n/);
  return {
    final: async () => read(await writer.write(job)),
    partial: async () => read(await writer.writePartial(job)),
  };
}

/** The input cell of each result line (the first column, since the original columns are kept). */
const cells = (lines: string[]) => lines.slice(1).map((line) => line.split(',')[0]);

describe('ResultWriter.writePartial: the rows verified so far', () => {
  it('is the whole final file once every chunk is answered', async () => {
    const writer = setup(new Set([0, 1, 2]));
    expect(await writer.partial()).toEqual(await writer.final());
  });

  it('stops before the first address of the first unanswered chunk, keeping the bad cells and repeats before it', async () => {
    const writer = setup(new Set([0, 2]));
    const final = await writer.final();
    const partial = await writer.partial();
    // Chunk 1 (c, d) is not answered: everything up to the row before c@x.test, in input order.
    expect(cells(partial)).toEqual(['a@x.test', 'not-an-address', 'b@x.test', 'a@x.test', '']);
    expect(partial).toEqual(final.slice(0, partial.length));
  });

  it('holds every row up to the last answered chunk, given-up chunks included, and not past a later gap', async () => {
    const writer = setup(new Set([0, 1]));
    const final = await writer.final();
    const partial = await writer.partial();
    // Chunk 1 was given up: its addresses read unknown, as in the final file. Chunk 2 is still out.
    expect(cells(partial)).toEqual([
      'a@x.test',
      'not-an-address',
      'b@x.test',
      'a@x.test',
      '',
      'c@x.test',
      'b@x.test',
      'd@x.test',
    ]);
    expect(partial).toEqual(final.slice(0, partial.length));
    expect(partial[6]).toContain('unknown');
  });

  it('is the header alone while the first chunk is out', async () => {
    const writer = setup(new Set([1, 2]));
    const partial = await writer.partial();
    expect(partial).toEqual((await writer.final()).slice(0, 1));
  });
});

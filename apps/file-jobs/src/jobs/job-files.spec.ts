import type { JetStreamKit } from '@emailverify/messaging';
import { describe, expect, it } from 'vitest';
import { JobFiles, PARTIAL_COPY_MAX_AGE_MS } from './job-files';
import type { JobsRepository } from './jobs.repository';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

/** JobFiles over an object store holding these objects, recording what it deletes. */
function setup(objects: Array<{ name: string; mtime: string; deleted?: boolean }>) {
  const deleted: string[] = [];
  const store = {
    list: async () => objects.map((o) => ({ ...o, deleted: o.deleted ?? false })),
    delete: async (name: string) => void deleted.push(name),
  };
  const kit = { objectStore: async () => store } as unknown as Pick<JetStreamKit, 'objectStore'>;
  const files = new JobFiles({} as JobsRepository, kit, { FILE_RETENTION_DAYS: 30 });
  return { files, deleted };
}

describe('JobFiles.removeStaleCopies', () => {
  it('removes only copies of partial results older than a day, never uploads or result files', async () => {
    const { files, deleted } = setup([
      { name: 'partial/j1/old.csv', mtime: ago(PARTIAL_COPY_MAX_AGE_MS + 1) },
      { name: 'partial/j1/being-read.csv', mtime: ago(PARTIAL_COPY_MAX_AGE_MS - 60_000) },
      { name: 'partial/j2/gone.csv', mtime: ago(2 * PARTIAL_COPY_MAX_AGE_MS), deleted: true },
      { name: 'uploads/u1', mtime: ago(10 * PARTIAL_COPY_MAX_AGE_MS) },
      { name: 'results/j1.csv', mtime: ago(10 * PARTIAL_COPY_MAX_AGE_MS) },
    ]);
    expect(await files.removeStaleCopies(NOW)).toBe(1);
    expect(deleted).toEqual(['partial/j1/old.csv']);
  });
});

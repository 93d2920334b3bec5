import type { DataSource } from '@emailverify/persistence';
import { openTestDatabase } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifierMigrations } from '../migrations';
import { FRESH_LOOKUP_SQL, ResultsRepository } from './results.repository';

describe('result cache lookups (real PostgreSQL)', () => {
  let db: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase('verifier', verifierMigrations));
    // A cache that has grown large and was never analysed: the case that used to scan the expiry index.
    await db.query(
      `INSERT INTO verifier.results (email, smtp_checked, status, result, expires_at)
       SELECT 'u' || g || '@d' || (g % 500) || '.test', g % 3 = 0, 'valid', '{}'::jsonb,
              now() + CASE WHEN g % 10 = 0 THEN interval '-1 hour' ELSE interval '24 hours' END
         FROM generate_series(1, 300000) g`,
    );
  });
  afterAll(async () => drop?.());

  it('looks addresses up by key, never by scanning the expiry index', async () => {
    const emails = Array.from({ length: 500 }, (_, i) => `u${20_000 + i}@d${(20_000 + i) % 500}.test`);
    const [{ 'QUERY PLAN': plan }] = (await db.query(`EXPLAIN (FORMAT JSON) ${FRESH_LOOKUP_SQL}`, [
      emails,
      false,
    ])) as Array<{
      'QUERY PLAN': unknown;
    }>;
    const text = JSON.stringify(plan);
    expect(text).toContain('results_pkey');
    expect(text).not.toContain('results_expires_idx');
  });

  it('returns fresh results only, preferring the SMTP-verified one', async () => {
    const repo = new ResultsRepository(db);
    // u20010: g % 10 = 0, expired. u20002: MX-only (20002 % 3 = 1), fresh. u20004 (% 3 = 0): SMTP-checked, fresh.
    const found = await repo.findFreshWithTime(
      ['u20010@d10.test', 'u20002@d2.test', 'u20004@d4.test'],
      false,
    );
    expect([...found.keys()].sort()).toEqual(['u20002@d2.test', 'u20004@d4.test']);
    const smtpOnly = await repo.findFreshWithTime(['u20002@d2.test', 'u20004@d4.test'], true);
    expect([...smtpOnly.keys()]).toEqual(['u20004@d4.test']);
  });
});

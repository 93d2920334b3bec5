import { packResult, type VerificationResult } from '@emailverify/contracts';
import { type DataSource, Sql } from '@emailverify/persistence';
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
       SELECT 'u' || g || '@d' || (g % 500) || '.test', g % 3 = 0, 'valid', $1,
              now() + CASE WHEN g % 10 = 0 THEN interval '-1 hour' ELSE interval '24 hours' END
         FROM generate_series(1, 300000) g`,
      [packResult(sampleResult('u@d.test'))],
    );
  });
  afterAll(async () => drop?.());

  it('looks addresses up by key, never by scanning the expiry index', async () => {
    const emails = Array.from({ length: 500 }, (_, i) => `u${20_000 + i}@d${(20_000 + i) % 500}.test`);
    const [{ 'QUERY PLAN': plan }] = (await db.query(`EXPLAIN (FORMAT JSON) ${FRESH_LOOKUP_SQL}`, [
      emails.join('\n'),
      false,
    ])) as Array<{
      'QUERY PLAN': unknown;
    }>;
    const text = JSON.stringify(plan);
    expect(text).toContain('results_pkey');
    expect(text).not.toContain('results_expires');
  });

  it('returns fresh results only, preferring the SMTP-verified one', async () => {
    const repo = new ResultsRepository(new Sql(db));
    // u20010: g % 10 = 0, expired. u20002: MX-only (20002 % 3 = 1), fresh. u20004 (% 3 = 0): SMTP-checked, fresh.
    const found = await repo.findFreshWithTime(
      ['u20010@d10.test', 'u20002@d2.test', 'u20004@d4.test'],
      false,
    );
    expect([...found.keys()].sort()).toEqual(['u20002@d2.test', 'u20004@d4.test']);
    const smtpOnly = await repo.findFreshWithTime(['u20002@d2.test', 'u20004@d4.test'], true);
    expect([...smtpOnly.keys()]).toEqual(['u20004@d4.test']);
  });

  it('saves results as given and replaces an address saved again', async () => {
    const repo = new ResultsRepository(new Sql(db));
    const first = {
      ...sampleResult('saved@d1.test'),
      status: 'risky' as const,
      reason: 'smtp_timeout' as const,
    };
    // Text with line breaks, quotes and backslashes travels intact.
    const other = { ...sampleResult('other@d1.test'), smtpResponse: '550-first line\n550 "second" \\ line' };
    await repo.save([first, other], false, 24);
    await repo.save([sampleResult('saved@d1.test')], false, 24);
    const found = await repo.findFresh(['saved@d1.test', 'other@d1.test'], false);
    expect(found.get('saved@d1.test')).toEqual(sampleResult('saved@d1.test'));
    expect(found.get('other@d1.test')).toEqual(other);
    // Saved MX-only: never an answer to an SMTP request.
    expect((await repo.findFresh(['saved@d1.test'], true)).size).toBe(0);
  });

  it('keeps the time each result was verified, not the time it was stored, and expires it from then', async () => {
    const repo = new ResultsRepository(new Sql(db));
    const verifiedAt = Date.now() - 90 * 60_000;
    const older = verifiedAt - 60 * 60_000;
    // A store that lands late (batched after the reply): a job created meanwhile still sees it as older.
    await repo.save([sampleResult('late@d1.test'), sampleResult('later@d1.test')], false, 2, [
      verifiedAt,
      older,
    ]);
    const found = await repo.findFreshWithTime(['late@d1.test', 'later@d1.test'], false);
    expect(found.get('late@d1.test')?.verifiedAt.getTime()).toBe(verifiedAt);
    // Verified 2.5 hours ago with a 2-hour lifetime: already expired, however recently it was stored.
    expect(found.has('later@d1.test')).toBe(false);
    await expect(repo.save([sampleResult('x@d1.test')], false, 2, [1, 2])).rejects.toThrow(
      /one verification time/,
    );
  });

  it('saves a batch whole when some of its addresses already have a row, expired or not', async () => {
    const repo = new ResultsRepository(new Sql(db));
    // u20020 holds an expired row, u20002 a fresh one (both MX-only); new@d1.test has none.
    const batch = ['new@d1.test', 'u20020@d20.test', 'u20002@d2.test'].map(sampleResult);
    await repo.save(batch, false, 24);
    const found = await repo.findFresh(
      batch.map((r) => r.email),
      false,
    );
    expect(batch.map((r) => found.get(r.email))).toEqual(batch);
    const [{ rows }] = (await db.query(
      `SELECT count(*)::int AS rows FROM verifier.results WHERE email = ANY($1::text[])`,
      [batch.map((r) => r.email)],
    )) as Array<{ rows: number }>;
    expect(rows).toBe(3);
  });
});

function sampleResult(email: string): VerificationResult {
  return {
    email,
    status: 'valid',
    reason: 'mx_found',
    score: 0.9,
    isDeliverable: true,
    isDisposable: false,
    isCatchall: false,
    isRole: false,
    isFree: false,
    hasGravatar: false,
    gravatarUrl: '',
    domain: 'd1.test',
    domainAge: 0,
    mxRecords: ['mx.d1.test'],
    domainReputation: { mxIp: '', isListed: false, blacklists: [], checked: false },
    smtpCheck: false,
    smtpResponse: '',
    errorMessage: '',
    domainSuggestion: '',
    responseTime: 3,
    validFormat: true,
    validDomain: true,
    validMx: true,
    smtpValid: false,
  };
}

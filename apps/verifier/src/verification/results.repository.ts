import { Injectable } from '@nestjs/common';
import { packResult, unpackResult, type VerificationResult } from '@emailverify/contracts';
import { isUniqueViolation, prepared, Sql } from '@emailverify/persistence';

/**
 * Cached results for a list of addresses: one primary-key lookup per address (LATERAL), whatever the table's
 * statistics say. A plain `email = ANY(...) AND expires_at > now()` let the planner scan the expiry index or the
 * whole table when the cache had grown and was not analysed yet, so large file jobs slowed down as they went.
 */
export const FRESH_LOOKUP_SQL = `SELECT k.email, hit.status, hit.result, hit.verified_at
    FROM unnest(string_to_array($1::text, E'\\n')) AS k(email)
    CROSS JOIN LATERAL (
      SELECT r.status, r.result, r.verified_at
        FROM verifier.results r
       WHERE r.email = k.email AND r.expires_at > now() AND (r.smtp_checked OR NOT $2::boolean)
       ORDER BY r.smtp_checked DESC
       LIMIT 1) AS hit`;

/** The times are worked out once for the batch (in the select list they would be computed again for every row). */
const SAVE_SQL = `INSERT INTO verifier.results (email, smtp_checked, status, result, verified_at, expires_at)
  SELECT r.email, $4::boolean, r.status, r.result, t.verified_at, t.verified_at + make_interval(hours => $5::int)
    FROM unnest(string_to_array($1::text, E'\\n'), string_to_array($2::text, E'\\n'),
                string_to_array($3::text, E'\\n'), string_to_array($6::text, E'\\n')) AS r(email, status, result, at),
         LATERAL (SELECT to_timestamp(r.at::double precision / 1000) AS verified_at) AS t`;

// Run for every verification (and every file-job chunk), so each is prepared once per pooled connection.
const FRESH_LOOKUP = prepared('results_fresh_lookup', FRESH_LOOKUP_SQL);
const SAVE = prepared('results_save', SAVE_SQL);
const SAVE_OR_REPLACE = prepared(
  'results_save_or_replace',
  `${SAVE_SQL}
   ON CONFLICT (email, smtp_checked)
   DO UPDATE SET status = EXCLUDED.status, result = EXCLUDED.result, verified_at = EXCLUDED.verified_at, expires_at = EXCLUDED.expires_at`,
);

/**
 * Addresses as one text of lines, which PostgreSQL splits (string_to_array): cheaper to send than a text
 * array, whose every element the driver escapes. A normalised address never holds a line break.
 */
function lines(emails: readonly string[]): string {
  if (emails.some((email) => email.includes('\n'))) throw new Error('an address holds a line break');
  return emails.join('\n');
}

/**
 * The verification result cache (schema `verifier`). Results are not customer data: an address verifies the
 * same for every account, so the cache is shared and keyed by the normalised address and SMTP mode. A row's
 * `result` is the rest of the result, packed (packResult).
 */
@Injectable()
export class ResultsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Fresh cached results for these addresses. An SMTP-verified result also answers an MX-only request (and is
   * preferred, being the stronger verdict); an MX-only result never answers an SMTP request.
   */
  async findFresh(emails: readonly string[], checkSmtp: boolean): Promise<Map<string, VerificationResult>> {
    const found = await this.findFreshWithTime(emails, checkSmtp);
    return new Map([...found].map(([email, hit]) => [email, hit.result]));
  }

  /** As findFresh, with the time each result was verified. */
  async findFreshWithTime(
    emails: readonly string[],
    checkSmtp: boolean,
  ): Promise<Map<string, { result: VerificationResult; verifiedAt: Date }>> {
    if (emails.length === 0) return new Map();
    const rows = await this.sql.rows<{
      email: string;
      status: VerificationResult['status'];
      result: string;
      verified_at: Date;
    }>(FRESH_LOOKUP, [lines(emails), checkSmtp]);
    return new Map(
      rows.map((r) => [
        r.email,
        { result: unpackResult(r.email, r.status, r.result), verifiedAt: r.verified_at },
      ]),
    );
  }

  /**
   * Stores results for `ttlHours` from the time each was verified (`verifiedAt`, epoch milliseconds, one per
   * result or one for all): stores are batched and may land after a file job that was created later, which must
   * still find the result verified before it (free), not by its own work (charged).
   */
  async save(
    results: readonly VerificationResult[],
    smtpChecked: boolean,
    ttlHours: number,
    verifiedAt: number | readonly number[] = Date.now(),
  ): Promise<void> {
    if (results.length === 0 || ttlHours <= 0) return;
    const times = typeof verifiedAt === 'number' ? results.map(() => verifiedAt) : verifiedAt;
    if (times.length !== results.length) throw new Error('one verification time per result');
    // Three parallel columns, each one text of lines (JSON.stringify never writes a raw line break): the
    // cheapest shape for PostgreSQL to take apart, and for the client to send (a text array has every element
    // escaped by the driver).
    const params = [
      lines(results.map((r) => r.email)),
      results.map((r) => r.status).join('\n'),
      results.map(packResult).join('\n'),
      smtpChecked,
      ttlHours,
      times.join('\n'),
    ];
    // Almost every address is new to the cache (it was looked up a moment ago), and a plain insert costs
    // PostgreSQL about a third less than an upsert. When some address has a row after all (expired, not yet
    // purged; or verified at the same moment elsewhere), the failed insert left nothing and the upsert follows.
    try {
      await this.sql.affected(SAVE, params);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await this.sql.affected(SAVE_OR_REPLACE, params);
    }
  }

  purgeExpired(): Promise<number> {
    return this.sql.affected(`DELETE FROM verifier.results WHERE expires_at <= now()`);
  }
}

import type { VerificationResult } from '@emailverify/contracts';
import type { DataSource } from '@emailverify/persistence';

/**
 * Cached results for a list of addresses: one primary-key lookup per address (LATERAL), whatever the table's
 * statistics say. A plain `email = ANY(...) AND expires_at > now()` let the planner scan the expiry index or the
 * whole table when the cache had grown and was not analysed yet, so large file jobs slowed down as they went.
 */
export const FRESH_LOOKUP_SQL = `SELECT k.email, hit.result, hit.verified_at
    FROM unnest(string_to_array($1::text, E'\\n')) AS k(email)
    CROSS JOIN LATERAL (
      SELECT r.result, r.verified_at
        FROM verifier.results r
       WHERE r.email = k.email AND r.expires_at > now() AND (r.smtp_checked OR NOT $2::boolean)
       ORDER BY r.smtp_checked DESC
       LIMIT 1) AS hit`;

const SAVE_SQL = `INSERT INTO verifier.results (email, smtp_checked, status, result, verified_at, expires_at)
  SELECT r.email, $4::boolean, r.status, r.result, now(), now() + make_interval(hours => $5::int)
    FROM unnest(string_to_array($1::text, E'\\n'), string_to_array($2::text, E'\\n'),
                string_to_array($3::text, E'\\n')) AS r(email, status, result)`;

const UNIQUE_VIOLATION = '23505';

/**
 * Addresses as one text of lines, which PostgreSQL splits (string_to_array): cheaper to send than a text
 * array, whose every element the driver escapes. A normalised address never holds a line break.
 */
function lines(emails: readonly string[]): string {
  if (emails.some((email) => email.includes('\n'))) throw new Error('an address holds a line break');
  return emails.join('\n');
}

/**
 * A cached result is stored as its values in a fixed field order (a JSON array), less than half the bytes of
 * the object: the cache takes a row for every address verified. Written out field by field, which is several
 * times faster than a generic walk over a field list. Rows stored as objects still read.
 */
type StoredResult = [
  VerificationResult['email'],
  VerificationResult['status'],
  VerificationResult['reason'],
  VerificationResult['score'],
  VerificationResult['isDeliverable'],
  VerificationResult['isDisposable'],
  VerificationResult['isCatchall'],
  VerificationResult['isRole'],
  VerificationResult['isFree'],
  VerificationResult['hasGravatar'],
  VerificationResult['gravatarUrl'],
  VerificationResult['domain'],
  VerificationResult['domainAge'],
  VerificationResult['mxRecords'],
  VerificationResult['domainReputation'],
  VerificationResult['smtpCheck'],
  VerificationResult['smtpResponse'],
  VerificationResult['errorMessage'],
  VerificationResult['domainSuggestion'],
  VerificationResult['responseTime'],
  VerificationResult['validFormat'],
  VerificationResult['validDomain'],
  VerificationResult['validMx'],
  VerificationResult['smtpValid'],
];

export function packResult(r: VerificationResult): string {
  const stored: StoredResult = [
    r.email,
    r.status,
    r.reason,
    r.score,
    r.isDeliverable,
    r.isDisposable,
    r.isCatchall,
    r.isRole,
    r.isFree,
    r.hasGravatar,
    r.gravatarUrl,
    r.domain,
    r.domainAge,
    r.mxRecords,
    r.domainReputation,
    r.smtpCheck,
    r.smtpResponse,
    r.errorMessage,
    r.domainSuggestion,
    r.responseTime,
    r.validFormat,
    r.validDomain,
    r.validMx,
    r.smtpValid,
  ];
  return JSON.stringify(stored);
}

export function unpackResult(text: string): VerificationResult {
  const stored = JSON.parse(text) as StoredResult | VerificationResult;
  if (!Array.isArray(stored)) return stored;
  const [
    email,
    status,
    reason,
    score,
    isDeliverable,
    isDisposable,
    isCatchall,
    isRole,
    isFree,
    hasGravatar,
    gravatarUrl,
    domain,
    domainAge,
    mxRecords,
    domainReputation,
    smtpCheck,
    smtpResponse,
    errorMessage,
    domainSuggestion,
    responseTime,
    validFormat,
    validDomain,
    validMx,
    smtpValid,
  ] = stored;
  // `satisfies`: this stops compiling when VerificationResult gains a field that is not stored.
  return {
    email,
    status,
    reason,
    score,
    isDeliverable,
    isDisposable,
    isCatchall,
    isRole,
    isFree,
    hasGravatar,
    gravatarUrl,
    domain,
    domainAge,
    mxRecords,
    domainReputation,
    smtpCheck,
    smtpResponse,
    errorMessage,
    domainSuggestion,
    responseTime,
    validFormat,
    validDomain,
    validMx,
    smtpValid,
  } satisfies Required<VerificationResult>;
}

/**
 * The verification result cache (schema `verifier`). Results are not customer data: an address verifies the
 * same for every account, so the cache is shared and keyed by the normalised address and SMTP mode.
 */
export class ResultsRepository {
  constructor(private readonly db: DataSource) {}

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
    const rows: Array<{ email: string; result: string; verified_at: Date }> = await this.db.query(
      FRESH_LOOKUP_SQL,
      [lines(emails), checkSmtp],
    );
    return new Map(rows.map((r) => [r.email, { result: unpackResult(r.result), verifiedAt: r.verified_at }]));
  }

  async save(results: readonly VerificationResult[], smtpChecked: boolean, ttlHours: number): Promise<void> {
    if (results.length === 0 || ttlHours <= 0) return;
    // Three parallel columns, each one text of lines (JSON.stringify never writes a raw line break): the
    // cheapest shape for PostgreSQL to take apart, and for the client to send (a text array has every element
    // escaped by the driver).
    const params = [
      lines(results.map((r) => r.email)),
      results.map((r) => r.status).join('\n'),
      results.map(packResult).join('\n'),
      smtpChecked,
      ttlHours,
    ];
    // Almost every address is new to the cache (it was looked up a moment ago), and a plain insert costs
    // PostgreSQL about a third less than an upsert. When some address has a row after all (expired, not yet
    // purged; or verified at the same moment elsewhere), the failed insert left nothing and the upsert follows.
    try {
      await this.db.query(SAVE_SQL, params);
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      await this.db.query(
        `${SAVE_SQL}
         ON CONFLICT (email, smtp_checked)
         DO UPDATE SET status = EXCLUDED.status, result = EXCLUDED.result, verified_at = EXCLUDED.verified_at, expires_at = EXCLUDED.expires_at`,
        params,
      );
    }
  }

  async purgeExpired(): Promise<number> {
    const raw: unknown = await this.db.query(`DELETE FROM verifier.results WHERE expires_at <= now()`);
    return Array.isArray(raw) && typeof raw[1] === 'number' ? raw[1] : 0;
  }
}

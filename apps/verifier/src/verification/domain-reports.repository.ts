import type { DomainReport } from '@emailverify/contracts';
import type { DataSource } from '@emailverify/persistence';

/**
 * The domain report cache (schema `verifier`), shared by every account like the address result cache: one row
 * per ASCII domain and SMTP mode, the report as JSON. A report with an SMTP probe does not answer a request
 * without one (its catch-all verdict would show), nor the other way round.
 */
export class DomainReportsRepository {
  constructor(private readonly db: DataSource) {}

  async findFresh(domain: string, smtpChecked: boolean): Promise<DomainReport | undefined> {
    const rows: Array<{ report: string }> = await this.db.query(
      `SELECT report FROM verifier.domain_reports
        WHERE domain = $1 AND smtp_checked = $2 AND expires_at > now()`,
      [domain, smtpChecked],
    );
    return rows[0] ? (JSON.parse(rows[0].report) as DomainReport) : undefined;
  }

  async save(report: DomainReport, smtpChecked: boolean, ttlHours: number): Promise<void> {
    if (ttlHours <= 0) return;
    await this.db.query(
      `INSERT INTO verifier.domain_reports (domain, smtp_checked, report, verified_at, expires_at)
       VALUES ($1, $2, $3, now(), now() + make_interval(hours => $4::int))
       ON CONFLICT (domain, smtp_checked)
       DO UPDATE SET report = EXCLUDED.report, verified_at = EXCLUDED.verified_at, expires_at = EXCLUDED.expires_at`,
      [report.domain, smtpChecked, JSON.stringify(report), ttlHours],
    );
  }

  async purgeExpired(): Promise<number> {
    const raw: unknown = await this.db.query(`DELETE FROM verifier.domain_reports WHERE expires_at <= now()`);
    return Array.isArray(raw) && typeof raw[1] === 'number' ? raw[1] : 0;
  }
}

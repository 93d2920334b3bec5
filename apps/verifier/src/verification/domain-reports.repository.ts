import { Injectable } from '@nestjs/common';
import type { DomainReport } from '@emailverify/contracts';
import { Sql } from '@emailverify/persistence';

/**
 * The domain report cache (schema `verifier`), shared by every account like the address result cache: one row
 * per ASCII domain and SMTP mode, the report as JSON.
 */
@Injectable()
export class DomainReportsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * A fresh cached report of the domain. As for addresses, a report with the SMTP probe also answers a request
   * without one (and is preferred), its catch-all verdict withheld (null, as a report without the probe has
   * it); a report without the probe never answers a request with one.
   */
  async findFresh(domain: string, smtpChecked: boolean): Promise<DomainReport | undefined> {
    const row = await this.sql.one<{ report: string; smtp_checked: boolean }>(
      `SELECT report, smtp_checked FROM verifier.domain_reports
        WHERE domain = $1 AND expires_at > now() AND (smtp_checked OR NOT $2::boolean)
        ORDER BY smtp_checked DESC
        LIMIT 1`,
      [domain, smtpChecked],
    );
    if (!row) return undefined;
    const report = JSON.parse(row.report) as DomainReport;
    return row.smtp_checked && !smtpChecked ? { ...report, isCatchall: null } : report;
  }

  async save(report: DomainReport, smtpChecked: boolean, ttlHours: number): Promise<void> {
    if (ttlHours <= 0) return;
    await this.sql.affected(
      `INSERT INTO verifier.domain_reports (domain, smtp_checked, report, verified_at, expires_at)
       VALUES ($1, $2, $3, now(), now() + make_interval(hours => $4::int))
       ON CONFLICT (domain, smtp_checked)
       DO UPDATE SET report = EXCLUDED.report, verified_at = EXCLUDED.verified_at, expires_at = EXCLUDED.expires_at`,
      [report.domain, smtpChecked, JSON.stringify(report), ttlHours],
    );
  }

  purgeExpired(): Promise<number> {
    return this.sql.affected(`DELETE FROM verifier.domain_reports WHERE expires_at <= now()`);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_DATA_SOURCE } from '@emailverify/service-kit';
import type { DomainReport } from '@emailverify/contracts';
import type { DataSource } from '@emailverify/persistence';

/**
 * The domain report cache (schema `verifier`), shared by every account like the address result cache: one row
 * per ASCII domain and SMTP mode, the report as JSON.
 */
@Injectable()
export class DomainReportsRepository {
  constructor(@Inject(SERVICE_DATA_SOURCE) private readonly db: DataSource) {}

  /**
   * A fresh cached report of the domain. As for addresses, a report with the SMTP probe also answers a request
   * without one (and is preferred), its catch-all verdict withheld (null, as a report without the probe has
   * it); a report without the probe never answers a request with one.
   */
  async findFresh(domain: string, smtpChecked: boolean): Promise<DomainReport | undefined> {
    const rows: Array<{ report: string; smtp_checked: boolean }> = await this.db.query(
      `SELECT report, smtp_checked FROM verifier.domain_reports
        WHERE domain = $1 AND expires_at > now() AND (smtp_checked OR NOT $2::boolean)
        ORDER BY smtp_checked DESC
        LIMIT 1`,
      [domain, smtpChecked],
    );
    const row = rows[0];
    if (!row) return undefined;
    const report = JSON.parse(row.report) as DomainReport;
    return row.smtp_checked && !smtpChecked ? { ...report, isCatchall: null } : report;
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

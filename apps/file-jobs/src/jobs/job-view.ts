import type { FileJobView } from '@emailverify/contracts';
import type { JobRow } from './jobs.repository';

export function toView(row: JobRow): FileJobView {
  return {
    jobId: row.id,
    accountId: row.account_id,
    fileName: row.file_name,
    fileSize: Number(row.file_size),
    status: row.status,
    emailColumn: row.email_column,
    totalRows: row.total_rows,
    uniqueEmails: row.unique_emails,
    estimatedCount: row.estimated_count,
    totalChunks: row.total_chunks,
    completedChunks: row.completed_chunks,
    failedChunks: row.failed_chunks,
    processedEmails: row.processed_emails,
    waitingEmails: row.waiting_emails,
    counts: {
      valid: row.valid_emails,
      invalid: row.invalid_emails,
      unknown: row.unknown_emails,
      risky: row.risky_emails,
      disposable: row.disposable_emails,
      catchall: row.catchall_emails,
      role: row.role_emails,
    },
    creditsUsed: row.credits_used,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    completedAt: row.completed_at?.toISOString() ?? null,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
  };
}

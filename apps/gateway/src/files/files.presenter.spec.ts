import { describe, expect, it } from 'vitest';
import { JOB_ID, makeJob } from '../testing/factories';
import { StatusPresenter, uploadPresenter } from './files.presenter';
import type { JobStatusView } from './files.service';

const links = {
  downloadUrl: `https://api.example.com/v1/verify/file/${JOB_ID}/results`,
  directDownloadUrl: `https://api.example.com/v1/verify/file/${JOB_ID}/download?expires=1&signature=ab`,
  directDownloadExpiresAt: '2026-11-22T11:00:00.000Z',
};

const finishedFields = [
  'role_emails',
  'catchall_emails',
  'risky_emails',
  'disposable_emails',
  'credits_used',
  'completed_at',
];
const linkFields = ['download_url', 'direct_download_url', 'direct_download_expires_at'];

describe('uploadPresenter', () => {
  const job = makeJob({ status: 'pending', processedEmails: 0, startedAt: null });

  it('answers the current upload reply with a status URL under the public base URL', () => {
    expect(uploadPresenter('https://api.example.com/').current(job)).toEqual({
      task_id: JOB_ID,
      file_name: 'leads.csv',
      file_size: 2048,
      status: 'pending',
      message: 'File accepted: 100 unique addresses queued for verification',
      status_url: `https://api.example.com/v1/verify/file/${JOB_ID}`,
      created_at: '2026-11-22T10:00:00.000Z',
      estimated_count: 100,
      unique_emails: 100,
      total_rows: 120,
      email_column: 'Email',
    });
  });

  it('answers the short legacy upload reply', () => {
    expect(uploadPresenter('https://api.example.com').legacy(job)).toEqual({
      job_id: JOB_ID,
      file_name: 'leads.csv',
      total_emails: 100,
      status: 'pending',
      created_at: '2026-11-22T10:00:00.000Z',
    });
  });
});

describe('StatusPresenter (current)', () => {
  it('shows only progress and counts while the job runs, with the addresses waiting for a greylisting retry', () => {
    const body = StatusPresenter.current(makeJob({ waitingEmails: 2 })) as Record<string, unknown>;
    expect(body).toEqual({
      task_id: JOB_ID,
      status: 'running',
      progress: 25,
      email_progress: 25,
      chunk_progress: 25,
      progress_source: 'emails',
      total_emails: 100,
      processed_emails: 25,
      waiting_emails: 2,
      valid_emails: 20,
      invalid_emails: 3,
      unknown_emails: 1,
      total_chunks: 4,
      completed_chunks: 1,
      failed_chunks: 0,
      unique_emails: 100,
      total_rows: 120,
      started_at: '2026-11-22T10:00:01.000Z',
    });
  });

  it('rounds progress down, caps it at 100, and calls a job without addresses done', () => {
    const progress = (processedEmails: number, uniqueEmails: number) =>
      (StatusPresenter.current(makeJob({ processedEmails, uniqueEmails })) as { progress: number }).progress;
    expect(progress(2, 3)).toBe(66);
    expect(progress(5, 3)).toBe(100);
    expect(progress(0, 0)).toBe(100);
  });

  it('adds the remaining counts, credits, completion time and both links once completed', () => {
    const view: JobStatusView = {
      ...makeJob({ status: 'completed', processedEmails: 100, completedAt: '2026-11-22T10:05:00.000Z' }),
      ...links,
    };
    const body = StatusPresenter.current(view) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 'completed',
      progress: 100,
      role_emails: 0,
      catchall_emails: 0,
      risky_emails: 1,
      disposable_emails: 0,
      credits_used: 24,
      completed_at: '2026-11-22T10:05:00.000Z',
      download_url: links.downloadUrl,
      direct_download_url: links.directDownloadUrl,
      direct_download_expires_at: links.directDownloadExpiresAt,
    });
    expect(body).not.toHaveProperty('error');
  });

  it('shows a failed job its error and no links', () => {
    const error = { code: 'JOB_FAILED', message: 'The file could not be read' };
    const body = StatusPresenter.current(makeJob({ status: 'failed', error })) as Record<string, unknown>;
    expect(body.error).toEqual(error);
    for (const field of finishedFields) expect(body).toHaveProperty(field);
    for (const field of linkFields) expect(body).not.toHaveProperty(field);
  });
});

describe('StatusPresenter (legacy)', () => {
  it('answers the same fields whatever the state', () => {
    for (const status of ['running', 'completed', 'failed'] as const) {
      expect(StatusPresenter.legacy({ ...makeJob({ status }), ...links })).toEqual({
        job_id: JOB_ID,
        file_name: 'leads.csv',
        status,
        total_emails: 100,
        valid_emails: 20,
        invalid_emails: 3,
        unknown_emails: 1,
        role_emails: 0,
        catchall_emails: 0,
        risky_emails: 1,
        disposable_emails: 0,
        credits_used: 24,
        progress_percent: 25,
        created_at: '2026-11-22T10:00:00.000Z',
        completed_at: null,
      });
    }
  });
});

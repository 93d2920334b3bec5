import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatProgress,
  jobCard,
  pollDelay,
  progressPercent,
  retryAfterMs,
  uploadPercent,
  verdictRows,
} from './job-card';

const base = { progress: 0, total_emails: 200, processed_emails: 0 };

describe('jobCard', () => {
  it('offers pause and cancel while a job runs, and the partial download', () => {
    const card = jobCard({ ...base, status: 'processing', progress: 42.7, processed_emails: 85 });
    expect(card.look.label).toBe('Verifying');
    expect(card.percent).toBe(42);
    expect(card.progressText).toBe('85 of 200 addresses verified (42%)');
    expect(card).toMatchObject({
      active: true,
      canPause: true,
      canResume: false,
      canCancel: true,
      canDelete: true,
      canDownload: false,
      canDownloadPartial: true,
    });
  });

  it('offers resume, not pause, for a paused job, which is not polled', () => {
    const card = jobCard({ ...base, status: 'paused', progress: 10, processed_emails: 20 });
    expect(card).toMatchObject({ active: false, canPause: false, canResume: true, canCancel: true });
    expect(card.look.label).toBe('Paused');
  });

  it('cannot pause a job while its results are written, but can cancel it', () => {
    expect(jobCard({ ...base, status: 'merging', progress: 100 })).toMatchObject({
      active: true,
      canPause: false,
      canCancel: true,
      percent: 99,
    });
  });

  it('offers the downloads, and neither pause nor cancel, once completed', () => {
    const card = jobCard({ ...base, status: 'completed', progress: 100, processed_emails: 200 });
    expect(card).toMatchObject({
      percent: 100,
      active: false,
      canPause: false,
      canResume: false,
      canCancel: false,
      canDownload: true,
      canDownloadPartial: false,
      filesDeleted: false,
    });
    expect(card.progressText).toBe('200 of 200 addresses verified (100%)');
  });

  it('has no download once retention deleted the files', () => {
    const card = jobCard({
      ...base,
      status: 'completed_with_warning',
      progress: 100,
      files_deleted_at: '2026-11-29T08:00:00.000Z',
    });
    expect(card).toMatchObject({ canDownload: false, filesDeleted: true });
  });

  it('offers only delete for a failed or cancelled job, its bar where it stopped', () => {
    for (const status of ['failed', 'cancelled']) {
      const card = jobCard({ ...base, status, progress: 30, processed_emails: 60 });
      expect(card).toMatchObject({
        active: false,
        canPause: false,
        canResume: false,
        canCancel: false,
        canDownload: false,
        canDownloadPartial: false,
        percent: 30,
      });
    }
  });

  it('tells addresses waiting for a greylisting retry', () => {
    expect(
      jobCard({ ...base, status: 'running', progress: 50, processed_emails: 100, waiting_emails: 3 })
        .progressText,
    ).toBe('100 of 200 addresses verified (50%); 3 waiting for a mail server to answer again');
  });

  it('shows an unknown state by its name and keeps watching it', () => {
    const card = jobCard({ ...base, status: 'thawing' });
    expect(card.look.label).toBe('thawing');
    expect(card.active).toBe(true);
  });
});

describe('progress formatting', () => {
  it('keeps a bar between 0 and 99 until the job is finished', () => {
    expect(progressPercent(99.9, false)).toBe(99);
    expect(progressPercent(120, false)).toBe(99);
    expect(progressPercent(-5, false)).toBe(0);
    expect(progressPercent(Number.NaN, false)).toBe(0);
    expect(progressPercent(12, true)).toBe(100);
  });

  it('writes counts with separators and the right noun', () => {
    expect(formatProgress(1234, 5000, 24)).toBe('1,234 of 5,000 addresses verified (24%)');
    expect(formatProgress(0, 1, 0)).toBe('0 of 1 address verified (0%)');
  });

  it('tells sizes in bytes, KiB and MiB', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5 MiB');
  });

  it('turns upload progress events into a whole percentage', () => {
    expect(uploadPercent(0, 0)).toBe(0);
    expect(uploadPercent(512, 1024)).toBe(50);
    expect(uploadPercent(1023, 1024)).toBe(99);
    expect(uploadPercent(2048, 1024)).toBe(100);
  });
});

describe('verdictRows', () => {
  it('lists the seven verdicts in order with their share of those counted', () => {
    const rows = verdictRows({
      valid_emails: 50,
      invalid_emails: 25,
      unknown_emails: 25,
      role_emails: 0,
    });
    expect(rows.map((row) => row.status)).toEqual([
      'valid',
      'invalid',
      'unknown',
      'catchall',
      'role',
      'disposable',
      'risky',
    ]);
    expect(rows.map((row) => row.share)).toEqual(['50%', '25%', '25%', '0%', '0%', '0%', '0%']);
  });

  it('reads no share while nothing is counted', () => {
    expect(verdictRows({ valid_emails: 0, invalid_emails: 0, unknown_emails: 0 })[0]?.share).toBe('0%');
  });
});

describe('retryAfterMs', () => {
  it('waits as long as a refusal asked, and not otherwise', () => {
    expect(retryAfterMs({ retryAfterSeconds: 30 })).toBe(30_000);
    expect(retryAfterMs({ retryAfterSeconds: undefined })).toBe(0);
    expect(retryAfterMs(new Error('offline'))).toBe(0);
    expect(retryAfterMs(null)).toBe(0);
  });
});

describe('pollDelay', () => {
  it('asks every 2 s while the list moves and backs off to 15 s while it does not', () => {
    expect(pollDelay(0)).toBe(2_000);
    expect(pollDelay(1)).toBe(3_000);
    expect(pollDelay(2)).toBe(4_500);
    expect(pollDelay(10)).toBe(15_000);
  });
});

import { describe, expect, it } from 'vitest';
import { downloadLink, verifyDownload } from './download-links';

describe('signed download links', () => {
  const secret = 's3cret';
  const job = '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed';
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);

  const parts = (url: string) => {
    const u = new URL(url);
    return {
      path: u.pathname,
      expires: u.searchParams.get('expires')!,
      signature: u.searchParams.get('signature')!,
    };
  };

  it('accepts an untouched link until it expires', () => {
    const link = downloadLink('https://api.example.com/', secret, job, 3600, now);
    const { path, expires, signature } = parts(link.url);
    expect(path).toBe(`/v1/verify/file/${job}/download`);
    expect(link.expiresAt).toBe('2026-11-22T13:00:00.000Z');
    expect(verifyDownload(secret, job, expires, signature, now)).toBe('ok');
    expect(verifyDownload(secret, job, expires, signature, now + 3601_000)).toBe('expired');
  });

  it('refuses a changed job, expiry, signature or secret', () => {
    const { expires, signature } = parts(downloadLink('http://x', secret, job, 60, now).url);
    expect(verifyDownload(secret, job.replace('1b9d', '2b9d'), expires, signature, now)).toBe('invalid');
    expect(verifyDownload(secret, job, String(Number(expires) + 1000), signature, now)).toBe('invalid');
    expect(
      verifyDownload(
        secret,
        job,
        expires,
        signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        now,
      ),
    ).toBe('invalid');
    expect(verifyDownload('other', job, expires, signature, now)).toBe('invalid');
    expect(verifyDownload(secret, job, undefined, signature, now)).toBe('invalid');
    expect(verifyDownload(secret, job, expires, 'zz', now)).toBe('invalid');
  });
});

import { describe, expect, it } from 'vitest';
import { baseConfigShape, loadConfig } from './config';
import { downloadLink, resultsUrl, verifyDownload, withDownloadLinks } from './download-links';

describe('signed download links', () => {
  const schema = withDownloadLinks({ ...baseConfigShape });
  const config = loadConfig(schema, {
    PUBLIC_BASE_URL: 'https://api.example.com/',
    DOWNLOAD_SIGNING_SECRET: 's3cret-of-16-chars',
  });
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
    const link = downloadLink(config, job, now);
    const { path, expires, signature } = parts(link.url);
    expect(link.url.startsWith('https://api.example.com/v1/')).toBe(true);
    expect(path).toBe(`/v1/verify/file/${job}/download`);
    expect(link.expiresAt).toBe('2026-11-22T13:00:00.000Z');
    expect(verifyDownload(config, job, expires, signature, now)).toBe('ok');
    expect(verifyDownload(config, job, expires, signature, now + 3601_000)).toBe('expired');
  });

  it('refuses a changed job, expiry, signature or secret', () => {
    const { expires, signature } = parts(downloadLink(config, job, now).url);
    expect(verifyDownload(config, job.replace('1b9d', '2b9d'), expires, signature, now)).toBe('invalid');
    expect(verifyDownload(config, job, String(Number(expires) + 1000), signature, now)).toBe('invalid');
    expect(
      verifyDownload(
        config,
        job,
        expires,
        signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        now,
      ),
    ).toBe('invalid');
    const other = { ...config, DOWNLOAD_SIGNING_SECRET: 'another-secret-of-16' };
    expect(verifyDownload(other, job, expires, signature, now)).toBe('invalid');
    expect(verifyDownload(config, job, undefined, signature, now)).toBe('invalid');
    expect(verifyDownload(config, job, expires, 'zz', now)).toBe('invalid');
  });

  it('names the results endpoint under the public base URL', () => {
    expect(resultsUrl(config, job)).toBe(`https://api.example.com/v1/verify/file/${job}/results`);
  });

  it('has no default secret: a config without one does not load, in any environment', () => {
    for (const NODE_ENV of ['development', 'test', 'production'])
      expect(() => loadConfig(schema, { NODE_ENV })).toThrow(/DOWNLOAD_SIGNING_SECRET: is required/);
    expect(() => loadConfig(schema, { DOWNLOAD_SIGNING_SECRET: 'short' })).toThrow(
      'DOWNLOAD_SIGNING_SECRET: at least 16 characters',
    );
    const production = loadConfig(schema, {
      NODE_ENV: 'production',
      DOWNLOAD_SIGNING_SECRET: 'x'.repeat(16),
    });
    expect(production.DOWNLOAD_SIGNING_SECRET).toBe('x'.repeat(16));
  });
});

import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed result-download links: HMAC-SHA256 over the job id and the expiry, so a link works without an API key
 * until it expires, and any change to it (job, expiry, signature) is refused.
 */
export function signDownload(secret: string, jobId: string, expiresAtSeconds: number): string {
  return createHmac('sha256', secret).update(`${jobId}.${expiresAtSeconds}`).digest('hex');
}

export function downloadLink(
  publicBaseUrl: string,
  secret: string,
  jobId: string,
  ttlSeconds: number,
  nowMs = Date.now(),
): { url: string; expiresAt: string } {
  const expires = Math.floor(nowMs / 1000) + ttlSeconds;
  const signature = signDownload(secret, jobId, expires);
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    url: `${base}/v1/verify/file/${jobId}/download?expires=${expires}&signature=${signature}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

export function verifyDownload(
  secret: string,
  jobId: string,
  expires: string | undefined,
  signature: string | undefined,
  nowMs = Date.now(),
): 'ok' | 'expired' | 'invalid' {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature))
    return 'invalid';
  const expected = Buffer.from(signDownload(secret, jobId, Number(expires)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
  return Number(expires) * 1000 < nowMs ? 'expired' : 'ok';
}

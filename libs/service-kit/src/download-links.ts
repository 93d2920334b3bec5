import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { type baseConfigShape, int } from './config';

/**
 * A service's config schema with the variables of the result-download links. file-jobs puts links into its
 * events and the gateway into job status replies, and the gateway checks them, so both read these (with the
 * same values). There is no default secret, in any environment: each installation has its own (`npm start`
 * makes one under .data/, the deployments require one), so a config without it does not load.
 */
export function withDownloadLinks<T extends z.ZodRawShape & typeof baseConfigShape>(shape: T) {
  return z.object({
    ...shape,
    /** Where clients reach the API; links name it. */
    PUBLIC_BASE_URL: z.string().url().default('http://localhost:3000'),
    DOWNLOAD_SIGNING_SECRET: z
      .string({ error: 'is required (at least 16 random characters, e.g. `openssl rand -hex 32`)' })
      .min(16, 'at least 16 characters'),
    DOWNLOAD_URL_TTL_SECONDS: int(3600, 60, 7 * 24 * 3600),
  });
}

export interface DownloadLinkConfig {
  PUBLIC_BASE_URL: string;
  DOWNLOAD_SIGNING_SECRET: string;
  DOWNLOAD_URL_TTL_SECONDS: number;
}

const secretOf = (config: DownloadLinkConfig) => config.DOWNLOAD_SIGNING_SECRET;
const baseOf = (config: DownloadLinkConfig) => config.PUBLIC_BASE_URL.replace(/\/+$/, '');

/**
 * Signed result-download links: HMAC-SHA256 over the job id and the expiry, so a link works without an API key
 * until it expires, and any change to it (job, expiry, signature) is refused.
 */
export function signDownload(secret: string, jobId: string, expiresAtSeconds: number): string {
  return createHmac('sha256', secret).update(`${jobId}.${expiresAtSeconds}`).digest('hex');
}

/** The signed link to a job's whole result file, valid for DOWNLOAD_URL_TTL_SECONDS. */
export function downloadLink(
  config: DownloadLinkConfig,
  jobId: string,
  nowMs = Date.now(),
): { url: string; expiresAt: string } {
  const expires = Math.floor(nowMs / 1000) + config.DOWNLOAD_URL_TTL_SECONDS;
  const signature = signDownload(secretOf(config), jobId, expires);
  return {
    url: `${baseOf(config)}/v1/verify/file/${jobId}/download?expires=${expires}&signature=${signature}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

/** The results endpoint of a job, which needs the API key. */
export function resultsUrl(config: DownloadLinkConfig, jobId: string): string {
  return `${baseOf(config)}/v1/verify/file/${jobId}/results`;
}

export function verifyDownload(
  config: DownloadLinkConfig,
  jobId: string,
  expires: string | undefined,
  signature: string | undefined,
  nowMs = Date.now(),
): 'ok' | 'expired' | 'invalid' {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature))
    return 'invalid';
  const expected = Buffer.from(signDownload(secretOf(config), jobId, Number(expires)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
  return Number(expires) * 1000 < nowMs ? 'expired' : 'ok';
}

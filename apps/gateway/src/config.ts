import { BULK_MAX_EMAILS } from '@emailverify/contracts';
import { baseConfigShape, int, serviceConfig, withDownloadLinks } from '@emailverify/service-kit';
import { z } from 'zod';

export const gatewayConfigSchema = withDownloadLinks({
  ...baseConfigShape,
  PORT: int(3000, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  /**
   * How long an idle client connection is kept open for its next request (Node's `server.keepAliveTimeout`,
   * announced in each reply's `Keep-Alive: timeout=` header). Longer than a load balancer's idle timeout (60 s
   * on the common ones), so the gateway never closes a connection the balancer is about to reuse, which the
   * balancer reports to its client as a 502; Node's own 5 s also races clients that pause between requests.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(65_000, 1_000, 600_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  /**
   * Express "trust proxy": which hops may set X-Forwarded-For (the client address of the failed-auth and
   * download limits). `false` (the default) trusts no proxy; `true` trusts every hop; a number trusts that
   * many hops; otherwise a comma-separated list of addresses, CIDR ranges or Express's names (`loopback`, ...).
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, ctx): boolean | number | string => {
      const v = value.trim();
      if (v === '' || v === 'false') return false;
      if (v === 'true') return true;
      if (/^\d+$/.test(v)) return Number(v);
      if (v.split(',').some((part) => !/^[\w.:/]+$/.test(part.trim()))) {
        ctx.addIssue({ code: 'custom', message: 'must be false, true, a hop count or a list of addresses' });
        return z.NEVER;
      }
      return v;
    }),
  /**
   * The built web console served at /console (Vite's output: index.html and assets/); unset: the one beside the
   * gateway's build (<dist>/apps/console). A directory without index.html leaves /console answering 404.
   */
  CONSOLE_DIR: z.string().min(1).optional(),
  /** Requests per minute per client address to the signed-link download, which needs no key. */
  RATE_LIMIT_DOWNLOAD: int(60, 1),
  RATE_LIMIT_SINGLE: int(6000, 1),
  RATE_LIMIT_BULK: int(1500, 1),
  RATE_LIMIT_FILE: int(300, 1),
  RATE_LIMIT_DISPOSABLE: int(6000, 1),
  RATE_LIMIT_OTHER: int(600, 1),
  RATE_LIMIT_AUTH_FAILURES: int(60, 1),
  /** How long a resolved API key is trusted before asking the credits service again (revocations also evict). */
  AUTH_CACHE_TTL_MS: int(30_000, 0, 3_600_000),
  JSON_BODY_LIMIT_BYTES: int(1_048_576, 1024),
  BULK_MAX_EMAILS: int(BULK_MAX_EMAILS.default, BULK_MAX_EMAILS.min, BULK_MAX_EMAILS.max),
  /** Deadline of a single or bulk verification (SMTP probes can take tens of seconds); past it: 504 TIMEOUT. */
  VERIFY_TIMEOUT_MS: int(120_000, 1_000, 600_000),
  FILE_MAX_BYTES: int(104_857_600, 1024),
  /**
   * What the object store's `files` bucket (uploads and result files) may hold: an upload that would pass it is
   * refused (503) before anything is stored or charged.
   */
  FILE_STORE_MAX_BYTES: int(53_687_091_200, 1024),
  /** Deadline for file-jobs to parse and stage an upload (a million-row file takes a while). */
  FILE_CREATE_TIMEOUT_MS: int(300_000, 1_000, 3_600_000),
  /** How long the reply to a request with an Idempotency-Key is kept for its repeats; fractions allowed. */
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().positive().max(720).default(24),
  /** Live Idempotency-Keys per account (held or kept); a new key beyond it is refused with 429. */
  IDEMPOTENCY_MAX_KEYS: int(10_000, 1),
  /**
   * How long a request in progress holds its key between renewals (every third of it): a gateway that dies
   * mid-request frees its keys after at most this long.
   */
  IDEMPOTENCY_LEASE_SECONDS: int(30, 3, 3600),
  /** The largest reply body kept for replays; a larger one frees its key instead. */
  IDEMPOTENCY_MAX_REPLY_BYTES: int(1_048_576, 1024, 67_108_864),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const gatewayConfig = serviceConfig('gateway', gatewayConfigSchema);
/** The token of the gateway's typed config, which its classes inject (`@Inject(GATEWAY_CONFIG)`). */
export const GATEWAY_CONFIG = gatewayConfig.token;

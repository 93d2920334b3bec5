import { baseConfigShape, bool, ConfigError, int, serviceConfig } from '@emailverify/service-kit';
import { z } from 'zod';
import { parseRetrySchedule } from './delivery/retry-schedule';
import { parseSecretKey, parseSecretKeys, type SecretKey, SINGLE_KEY_ID } from './webhooks/secret-box';

/** A variable read by `parse`: what `parse` throws is the variable's problem, in its own words. */
const readWith =
  <I, T>(parse: (value: I) => T) =>
  (value: I, ctx: z.core.$RefinementCtx<I>): T => {
    try {
      return parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  };

/**
 * A key variable that may be unset; empty counts as unset too: a deployment that moved to WEBHOOK_SECRET_KEYS
 * may leave WEBHOOK_SECRET_KEY blank.
 */
const optionalKeys = <T>(parse: (value: string) => T) =>
  z
    .string()
    .optional()
    .transform(readWith((value) => (value === undefined || value.trim() === '' ? undefined : parse(value))));

export const webhooksConfigSchema = z.object({
  ...baseConfigShape,
  HTTP_PORT: int(3104, 0, 65535),
  /** An attempt that has no complete 2xx reply within this long is a failed attempt. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
  /** Delay before each attempt, the first counted from the event (up to 10% jitter is added). */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('0,5s,5m,30m,2h,5h,10h,10h')
    .transform(readWith(parseRetrySchedule)),
  /** Targets on loopback, private, link-local and other non-public addresses are refused unless true. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool(false),
  /** AES-256-GCM key that encrypts signing secrets at rest: 32 bytes as 64 hex digits or base64. */
  WEBHOOK_SECRET_KEY: optionalKeys(parseSecretKey),
  /**
   * The key ring of the stored secrets, `id:key,...`: the first seals, every one opens, and rows sealed by
   * another are re-encrypted with the first in the background. WEBHOOK_SECRET_KEY, when also set, stays in
   * the ring as key `default` (what it sealed before key ids existed).
   */
  WEBHOOK_SECRET_KEYS: optionalKeys(parseSecretKeys),
  /** After a secret rotation, the old secret still signs for this many hours (fractions allowed; 0: none). */
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().min(0).max(720).default(24),
  /** A webhook whose deliveries all failed for this many days, with no success between, is deactivated. */
  WEBHOOK_DISABLE_AFTER_DAYS: int(5, 1, 365),
  /** Attempts in flight in one process. */
  WEBHOOK_DELIVERY_CONCURRENCY: int(32, 1, 1000),
  /** Attempts in flight to one webhook, across all replicas. */
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: int(4, 1, 100),
  /**
   * A webhook whose last this many attempts all failed is paused (its circuit breaker opens): its deliveries
   * wait, one probe goes after 30 s, then after twice as long after each failed probe, up to an hour.
   */
  WEBHOOK_BREAKER_FAILURES: int(10, 1, 1000),
  /** How often each replica looks for attempts that have come due (fresh deliveries go at once). */
  WEBHOOK_POLL_INTERVAL_MS: int(1000, 50, 60_000),
  /** Deliveries and their attempts are kept this long for the delivery log. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: int(30, 1, 3650),
});
export type WebhooksConfig = z.infer<typeof webhooksConfigSchema> & {
  /** The key ring made of WEBHOOK_SECRET_KEYS and WEBHOOK_SECRET_KEY, the sealing key first. */
  secretKeys: SecretKey[];
};

/** The key ring of what was read (WEBHOOK_SECRET_KEYS, then WEBHOOK_SECRET_KEY): required. */
function withSecretKeys(config: Readonly<z.infer<typeof webhooksConfigSchema>>): Readonly<WebhooksConfig> {
  const single = config.WEBHOOK_SECRET_KEY;
  const ring = config.WEBHOOK_SECRET_KEYS ?? [];
  const secretKeys =
    single && !ring.some((k) => k.id === SINGLE_KEY_ID)
      ? [...ring, { id: SINGLE_KEY_ID, key: single }]
      : ring;
  if (secretKeys.length === 0) {
    // Signing secrets must stay readable across restarts and replicas, so there is no made-up default:
    // `npm start` and the deployment files provide one per installation.
    throw new ConfigError([
      'WEBHOOK_SECRET_KEYS or WEBHOOK_SECRET_KEY: is required (32 random bytes as 64 hex digits or base64, e.g. `openssl rand -hex 32`; WEBHOOK_SECRET_KEYS as id:key,...)',
    ]);
  }
  return { ...config, secretKeys };
}

export const webhooksConfig = serviceConfig('webhooks', webhooksConfigSchema, { complete: withSecretKeys });
/** The token of the service's typed config, which its classes inject (`@Inject(WEBHOOKS_CONFIG)`). */
export const WEBHOOKS_CONFIG = webhooksConfig.token;

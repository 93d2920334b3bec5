import { baseConfigShape, bool, ConfigError, int, loadConfig } from '@emailverify/service-kit';
import { z } from 'zod';
import { parseRetrySchedule } from './delivery/retry-schedule';
import { parseSecretKey } from './webhooks/secret-box';

export const webhooksConfigSchema = z.object({
  ...baseConfigShape,
  HTTP_PORT: int(3104, 0, 65535),
  /** An attempt that has no complete 2xx reply within this long is a failed attempt. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
  /** Delay before each attempt, the first counted from the event (up to 10% jitter is added). */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('0,5s,5m,30m,2h,5h,10h,10h')
    .transform((value, ctx) => {
      try {
        return parseRetrySchedule(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** Targets on loopback, private, link-local and other non-public addresses are refused unless true. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool(false),
  /** AES-256-GCM key that encrypts signing secrets at rest: 32 bytes as 64 hex digits or base64. */
  WEBHOOK_SECRET_KEY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      try {
        return parseSecretKey(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** A webhook whose deliveries all failed for this many days, with no success between, is deactivated. */
  WEBHOOK_DISABLE_AFTER_DAYS: int(5, 1, 365),
  /** Attempts in flight in one process. */
  WEBHOOK_DELIVERY_CONCURRENCY: int(32, 1, 1000),
  /** How often each replica looks for attempts that have come due (fresh deliveries go at once). */
  WEBHOOK_POLL_INTERVAL_MS: int(1000, 50, 60_000),
  /** Deliveries and their attempts are kept this long for the delivery log. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: int(30, 1, 3650),
});
export type WebhooksConfig = z.infer<typeof webhooksConfigSchema> & { WEBHOOK_SECRET_KEY: Buffer };

export const loadWebhooksConfig = (env: NodeJS.ProcessEnv = process.env): Readonly<WebhooksConfig> => {
  const config = loadConfig(webhooksConfigSchema, env);
  if (!config.WEBHOOK_SECRET_KEY) {
    // Signing secrets must stay readable across restarts and replicas, so there is no made-up default:
    // `npm start` and the deployment files provide one per installation.
    throw new ConfigError([
      'WEBHOOK_SECRET_KEY: is required (32 random bytes as 64 hex digits or base64, e.g. `openssl rand -hex 32`)',
    ]);
  }
  return config as Readonly<WebhooksConfig>;
};

/** The token of the service's typed config, which its classes inject (`@Inject(WEBHOOKS_CONFIG)`). */
export const WEBHOOKS_CONFIG = Symbol('WEBHOOKS_CONFIG');

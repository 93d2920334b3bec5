import { readFileSync } from 'node:fs';
import { BULK_MAX_EMAILS } from '@emailverify/contracts';
import {
  baseConfigShape,
  bool,
  int,
  list,
  serviceConfig,
  SMTP_EGRESS_KEEP_EMPTY,
  smtpEgressConfigShape,
  smtpEgressOptions,
} from '@emailverify/service-kit';
import { parseProviderRules, type ProviderRule, type VerificationOptions } from '@emailverify/verification';
import { z } from 'zod';

export const verifierConfigSchema = z.object({
  ...baseConfigShape,
  HTTP_PORT: int(3102, 0, 65535),
  ...smtpEgressConfigShape,
  SMTP_MAX_CONCURRENCY_PER_MX: int(5, 1, 1000),
  SMTP_SEMAPHORE_TIMEOUT_MS: int(3000, 0, 600_000),
  DNSBL_DOMAIN_ZONES: list('dbl.spamhaus.org'),
  GRAVATAR_BASE_URL: z.union([z.literal(''), z.string().url()]).default('https://gravatar.com/avatar'),
  RDAP_BASE_URL: z.union([z.literal(''), z.string().url()]).default('https://rdap.org'),
  /**
   * Whether this verifier shares the domains' mail routing it finds in the DNS with the other verifiers of the
   * installation, and takes theirs (NATS broadcasts), instead of each replica resolving every domain itself.
   */
  SHARE_DOMAIN_FACTS: bool(true),
  /** Shared per-MX-host cap across verifier replicas; without it each process keeps its own. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  /** JSON file of provider rules, checked before the shipped ones; read and validated at start-up. */
  SMTP_PROVIDER_RULES_FILE: z
    .string()
    .optional()
    .transform((path, ctx): ProviderRule[] => {
      if (path === undefined) return [];
      try {
        return parseProviderRules(JSON.parse(readFileSync(path, 'utf8')));
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `${path}: ${error instanceof Error ? error.message : String(error)}`,
        });
        return z.NEVER;
      }
    }),
  RESULT_CACHE_TTL_HOURS: int(24, 0, 24 * 365),
  BULK_MAX_EMAILS: int(BULK_MAX_EMAILS.default, BULK_MAX_EMAILS.min, BULK_MAX_EMAILS.max),
  /**
   * How long the credits of a single or bulk verification stay reserved if this process dies before settling
   * them; then the credits service refunds them. Longer than any verification takes.
   */
  CREDIT_HOLD_SECONDS: int(900, 1, 7 * 24 * 3600),
  /** Addresses of one bulk request verified at the same time. */
  VERIFY_BULK_CONCURRENCY: int(10, 1, 1000),
  /** File-job chunks one verifier process works on at once, and addresses of a chunk verified at once. */
  FILE_CHUNK_CONCURRENCY: int(4, 1, 100),
  FILE_VERIFY_CONCURRENCY: int(25, 1, 1000),
  /** Deliveries of a chunk before it is reported failed (its addresses: unknown, free). */
  FILE_CHUNK_MAX_DELIVERIES: int(5, 1, 100),
  /** A chunk whose worker stops answering (crashed) goes to another worker after this long. */
  FILE_CHUNK_ACK_WAIT_MS: int(20_000, 1_000, 600_000),
});
export type VerifierConfig = z.infer<typeof verifierConfigSchema>;

/** Variables where an empty value means "disabled" rather than "default". */
const KEEP_EMPTY = [...SMTP_EGRESS_KEEP_EMPTY, 'DNSBL_DOMAIN_ZONES', 'GRAVATAR_BASE_URL', 'RDAP_BASE_URL'];

export const verifierConfig = serviceConfig('verifier', verifierConfigSchema, { keepEmpty: KEEP_EMPTY });

export function engineOptions(config: Readonly<VerifierConfig>): VerificationOptions {
  return {
    ...smtpEgressOptions(config),
    smtpMaxConcurrencyPerMx: config.SMTP_MAX_CONCURRENCY_PER_MX,
    smtpSemaphoreTimeoutMs: config.SMTP_SEMAPHORE_TIMEOUT_MS,
    dnsblDomainZones: config.DNSBL_DOMAIN_ZONES,
    gravatarBaseUrl: config.GRAVATAR_BASE_URL,
    rdapBaseUrl: config.RDAP_BASE_URL,
    smtpProviderRules: config.SMTP_PROVIDER_RULES_FILE,
  };
}

/** The token of the service's typed config, which its classes inject (`@Inject(VERIFIER_CONFIG)`). */
export const VERIFIER_CONFIG = verifierConfig.token;

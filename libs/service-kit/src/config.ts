import { z } from 'zod';

/** Raised when the environment does not validate; the message names every offending variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment with a zod object whose keys are the variable names; returns a frozen copy.
 * An empty value means "unset" (so `FOO=` in a compose file falls back to the default), except for the
 * variables in `keepEmpty`, where empty is meaningful (e.g. `DNSBL_IP_ZONES=` disables the check).
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  keepEmpty: readonly string[] = [],
): Readonly<z.infer<S>> {
  const source = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => v !== undefined && (v !== '' || keepEmpty.includes(k))),
  );
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return Object.freeze(parsed.data);
}

/**
 * A service's config as its start-up and its wiring use it: the service's name, the loader that validates its
 * environment, and the token its classes inject the config by (`@Inject(CREDITS_CONFIG)`).
 */
export interface ServiceConfig<C> {
  /** The service's name: its logger's, its metrics', its NATS connection's and its database session's. */
  readonly service: string;
  /** The frozen config read from `env`; a bad value throws a ConfigError naming the variable. */
  readonly load: (env?: NodeJS.ProcessEnv) => Readonly<C>;
  readonly token: symbol;
}

/**
 * The ServiceConfig of a service whose config is its schema read by `loadConfig` (with its `keepEmpty`), then
 * completed by `complete` when some of it is worked out from what was read.
 */
export function serviceConfig<S extends z.ZodObject, C = z.infer<S>>(
  service: string,
  schema: S,
  options: { keepEmpty?: readonly string[]; complete?: (read: Readonly<z.infer<S>>) => Readonly<C> } = {},
): ServiceConfig<C> {
  const { keepEmpty = [], complete = (read) => read as Readonly<C> } = options;
  return {
    service,
    load: (env = process.env) => complete(loadConfig(schema, env, keepEmpty)),
    token: Symbol(`${service} config`),
  };
}

export const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Variables every service reads. */
export const baseConfigShape = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432/emailverify'),
  /** Connections of this process's PostgreSQL pool. */
  DATABASE_POOL_SIZE: int(10, 1, 1000),
  /** A query that waits this long for a pooled connection (or a new one) fails instead of waiting forever. */
  DATABASE_POOL_TIMEOUT_MS: int(10_000, 100, 600_000),
  NATS_URL: z
    .string()
    .regex(/^(nats|tls):\/\//, 'must be a nats:// URL')
    .default('nats://127.0.0.1:4222'),
  NATS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, '-' or '_' only")
    .default('emailverify'),
  /** NATS user and password, where the server requires authentication (one user per service). */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_REQUEST_TIMEOUT_MS: int(5000, 100, 600_000),
  /** Replicas of every JetStream stream, consumer and object-store bucket: 3 on a clustered NATS. */
  NATS_STREAM_REPLICAS: int(1, 1, 5),
};

export const baseConfigSchema = z.object(baseConfigShape);
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/** A comma-separated list; empty gives an empty list. */
export const list = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );

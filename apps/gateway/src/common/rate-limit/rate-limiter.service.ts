import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { DomainError } from '@emailverify/contracts';
import { LOGGER } from '@emailverify/service-kit';
import type { Response } from 'express';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config';
import { GatewayMetrics, type LimiterName } from '../../gateway.metrics';
import type { RateLimitState } from '../http/request-context';
import type { RateClass } from './rate-classes';

export interface LimitDecision extends RateLimitState {
  allowed: boolean;
  /** Seconds until a refused caller may try again. */
  retryAfter: number;
}

const WINDOW_SECONDS = 60;

/**
 * One round trip for an authenticated request whose key was known: refuses (returns {-1, ttl}) when the client
 * address has failed authentication too often (KEYS[1] over ARGV[1]), else counts the request against the key's
 * class (KEYS[2]) exactly as rate-limiter-flexible's RateLimiterRedis counts it (the same keys, value and expiry,
 * so both count the same window) and returns {consumed, ttl}. ARGV[2] is the window in seconds. It mirrors the
 * library's key layout (rate-limiter-flexible 11.4.0, pinned): rate-limiter.service.int-spec.ts fails when the two
 * stop counting the same window; why it stays: docs/performance.md, "Redis limiter script".
 */
const ADMIT_SCRIPT = `
local failed = tonumber(redis.call('get', KEYS[1]) or '0')
if failed > tonumber(ARGV[1]) then
  return {-1, redis.call('pttl', KEYS[1])}
end
redis.call('set', KEYS[2], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[2], 1)
local ttl = redis.call('pttl', KEYS[2])
if ttl == -1 then
  redis.call('expire', KEYS[2], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}`;

type AdmitCommand = (
  authKey: string,
  classKey: string,
  authPoints: number,
  windowSeconds: number,
) => Promise<[number, number]>;

/** The outcome of `admit`: the address is blocked, or the request was counted. */
export type Admission =
  { blocked: LimitDecision; decision?: never } | { blocked?: never; decision: LimitDecision };

/** The 429 of an address that failed authentication too often, with its Retry-After. */
export function tooManyAuthFailures(res: Response, retryAfter: number): DomainError {
  res.setHeader('Retry-After', String(retryAfter));
  return new DomainError('RATE_LIMIT_EXCEEDED', 'Too many failed authentication attempts from this address', {
    retry_after: retryAfter,
  });
}

/**
 * Fixed one-minute windows per API key and endpoint class, and per client IP for failed authentication.
 * In-process without REDIS_URL (one gateway); in Redis with it, so the limits hold across replicas. When
 * Redis fails the request is let through (fail open) with a warning and a metric, never a 500.
 */
@Injectable()
export class RateLimiterService implements OnApplicationShutdown {
  private readonly redis?: Redis;
  private readonly limiters: Record<RateClass, RateLimiterAbstract>;
  private readonly authFailures: RateLimiterAbstract;
  private readonly downloads: RateLimiterAbstract;
  private readonly admitCommand?: AdmitCommand;

  constructor(
    @Inject(GATEWAY_CONFIG) config: Readonly<GatewayConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: GatewayMetrics,
  ) {
    if (config.REDIS_URL) {
      this.redis = new Redis(config.REDIS_URL, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        lazyConnect: false,
        retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      });
      this.redis.on('error', (err) => this.logger.warn({ err: err.message }, 'redis error'));
      this.redis.defineCommand('emailverifyAdmit', { numberOfKeys: 2, lua: ADMIT_SCRIPT });
      const redis = this.redis as Redis & { emailverifyAdmit: AdmitCommand };
      this.admitCommand = (...args) => redis.emailverifyAdmit(...args);
    }
    const make = (name: string, points: number): RateLimiterAbstract => {
      const keyPrefix = `${config.NATS_NAMESPACE}:rl:${name}`;
      return this.redis
        ? new RateLimiterRedis({
            storeClient: this.redis,
            keyPrefix,
            points,
            duration: WINDOW_SECONDS,
            rejectIfRedisNotReady: true,
          })
        : new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS });
    };
    this.limiters = {
      single: make('single', config.RATE_LIMIT_SINGLE),
      bulk: make('bulk', config.RATE_LIMIT_BULK),
      file: make('file', config.RATE_LIMIT_FILE),
      disposable: make('disposable', config.RATE_LIMIT_DISPOSABLE),
      other: make('other', config.RATE_LIMIT_OTHER),
    };
    this.authFailures = make('auth-failures', config.RATE_LIMIT_AUTH_FAILURES);
    this.downloads = make('download', config.RATE_LIMIT_DOWNLOAD);
  }

  limitOf(cls: RateClass): number {
    return this.limiters[cls].points;
  }

  /** Counts one request of `cls` for the key. */
  consume(cls: RateClass, apiKeyId: string): Promise<LimitDecision> {
    return this.take(this.limiters[cls], cls, apiKeyId);
  }

  /**
   * Counts one request of `cls` for the key, unless `ip` (when given) has failed authentication too often: with
   * Redis both in one round trip, so the limits still hold exactly across gateways. Every request waits for
   * this: without Redis it chains the limiters' own promises and makes no more of its own.
   */
  admit(cls: RateClass, apiKeyId: string, ip?: string): Promise<Admission> {
    const counted = (): Promise<Admission> => this.consume(cls, apiKeyId).then((decision) => ({ decision }));
    if (ip === undefined) return counted();
    if (!this.admitCommand || this.redis?.status !== 'ready') {
      return this.authBlocked(ip).then((blocked) => (blocked ? { blocked } : counted()));
    }
    return this.admitInOneTrip(cls, apiKeyId, ip, this.admitCommand);
  }

  /** `admit` with Redis: the address's failures and the key's count in one script. */
  private async admitInOneTrip(
    cls: RateClass,
    apiKeyId: string,
    ip: string,
    admitCommand: AdmitCommand,
  ): Promise<Admission> {
    const limiter = this.limiters[cls];
    try {
      const [consumed, ttl] = await admitCommand(
        this.authFailures.getKey(ip),
        limiter.getKey(apiKeyId),
        this.authFailures.points,
        WINDOW_SECONDS,
      );
      if (consumed < 0) {
        return { blocked: this.refused(this.authFailures, new RateLimiterRes(0, ttl)) };
      }
      const res = new RateLimiterRes(Math.max(0, limiter.points - consumed), ttl, consumed);
      return {
        decision: consumed <= limiter.points ? this.allowed(limiter, res) : this.refused(limiter, res),
      };
    } catch (err) {
      // The store failed: the request is let through, as `consume` lets it through.
      this.storeFailed(cls, err);
      return { decision: this.openDecision(limiter) };
    }
  }

  /** Whether this client IP has already failed authentication too often in the current window. */
  authBlocked(ip: string): Promise<LimitDecision | undefined> {
    return this.authFailures.get(ip).then(
      (res) =>
        res && res.consumedPoints > this.authFailures.points
          ? this.refused(this.authFailures, res)
          : undefined,
      (err: unknown) => {
        this.storeFailed('auth-failures', err);
        return undefined;
      },
    );
  }

  /** Records a failed authentication from `ip`. */
  recordAuthFailure(ip: string): Promise<LimitDecision> {
    return this.take(this.authFailures, 'auth-failures', ip);
  }

  /** Counts one signed-link download (no key) from the client address `ip`. */
  consumeDownload(ip: string): Promise<LimitDecision> {
    return this.take(this.downloads, 'download', ip);
  }

  private take(limiter: RateLimiterAbstract, name: LimiterName, key: string): Promise<LimitDecision> {
    return limiter.consume(key).then(
      (res) => this.allowed(limiter, res),
      (err: unknown) => {
        if (err instanceof RateLimiterRes) return this.refused(limiter, err);
        this.storeFailed(name, err);
        return this.openDecision(limiter);
      },
    );
  }

  /** What a request let through because the store failed is told. */
  private openDecision(limiter: RateLimiterAbstract): LimitDecision {
    return {
      allowed: true,
      limit: limiter.points,
      remaining: limiter.points,
      resetAt: Math.ceil(Date.now() / 1000) + WINDOW_SECONDS,
      retryAfter: 0,
    };
  }

  /** A request within the limit. */
  private allowed(limiter: RateLimiterAbstract, res: RateLimiterRes): LimitDecision {
    return { allowed: true, ...windowOf(limiter, res) };
  }

  /** A request over the limit. */
  private refused(limiter: RateLimiterAbstract, res: RateLimiterRes): LimitDecision {
    return { allowed: false, ...windowOf(limiter, res) };
  }

  private storeFailed(limiter: LimiterName, err: unknown): void {
    this.metrics.rateLimitStoreFailed(limiter);
    this.logger.warn(
      { limiter, err: err instanceof Error ? err.message : String(err) },
      'rate-limit store failed; request allowed',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

/** The limit's window as a reply tells it: the limit, what is left of it, and when it starts again. */
function windowOf(limiter: RateLimiterAbstract, res: RateLimiterRes): Omit<LimitDecision, 'allowed'> {
  return {
    limit: limiter.points,
    remaining: Math.max(0, res.remainingPoints),
    resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
    retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

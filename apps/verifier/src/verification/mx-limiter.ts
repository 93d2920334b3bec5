import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER } from '@emailverify/service-kit';
import { RedisMxLimiter, type MxLimiter } from '@emailverify/verification';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { VERIFIER_CONFIG, type VerifierConfig } from '../config';

/**
 * The per-MX-host cap: shared through Redis by every verifier when REDIS_URL is set (keys under
 * NATS_NAMESPACE), else undefined and the engine keeps an in-process one. Closes the Redis connection on shutdown.
 */
@Injectable()
export class MxLimiterHolder implements OnApplicationShutdown {
  readonly limiter: MxLimiter | undefined;
  private readonly redis: Redis | undefined;

  constructor(@Inject(VERIFIER_CONFIG) config: Readonly<VerifierConfig>, @Inject(LOGGER) logger: Logger) {
    if (!config.REDIS_URL) return;
    this.redis = new Redis(config.REDIS_URL, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis error'));
    this.limiter = new RedisMxLimiter(this.redis, {
      keyPrefix: config.NATS_NAMESPACE,
      onError: (err) => logger.warn({ err: err.message }, 'shared SMTP limiter failed; capping in process'),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}

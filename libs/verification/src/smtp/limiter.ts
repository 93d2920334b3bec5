import type { Redis } from 'ioredis';
import { Semaphore } from 'redis-semaphore';
import { KeyedSemaphore, type Release } from './semaphore';

/**
 * Caps the probe sessions open at once to one MX host. `acquire` gives a release function, or undefined when no
 * slot freed within `timeoutMs` (the caller then answers MX-only instead of queueing forever).
 */
export interface MxLimiter {
  acquire(mxHost: string, limit: number, timeoutMs: number): Promise<Release | undefined>;
}

/** The cap within this process only: right for a single verifier, or when no Redis is configured. */
export class LocalMxLimiter implements MxLimiter {
  private readonly semaphore = new KeyedSemaphore(1);

  acquire(mxHost: string, limit: number, timeoutMs: number): Promise<Release | undefined> {
    return this.semaphore.acquire(mxHost, timeoutMs, limit);
  }

  /** Sessions held for `mxHost` in this process. */
  active(mxHost: string): number {
    return this.semaphore.active(mxHost);
  }
}

export interface RedisMxLimiterOptions {
  /** Prefix of every key (the installation's namespace), so installations sharing a Redis stay apart. */
  keyPrefix: string;
  /**
   * Lifetime of a slot that is not refreshed: a verifier killed mid-session gives its slots back after this
   * long. A live holder refreshes its slot well before then.
   */
  leaseMs?: number;
  /** How often a waiting verifier asks again for a slot. */
  retryIntervalMs?: number;
  /** Told when Redis fails; the slot is then taken from the in-process limiter. */
  onError?: (error: Error) => void;
}

const DEFAULT_LEASE_MS = 30_000;

/**
 * The cap across every verifier sharing one Redis: a counting semaphore per MX host (a sorted set of leased
 * slots, redis-semaphore). When Redis fails the process falls back to its own in-process cap rather than stop
 * probing or probe without any cap.
 */
export class RedisMxLimiter implements MxLimiter {
  private readonly fallback = new LocalMxLimiter();
  private readonly leaseMs: number;
  private readonly retryIntervalMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisMxLimiterOptions,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.retryIntervalMs = options.retryIntervalMs ?? 50;
  }

  async acquire(mxHost: string, limit: number, timeoutMs: number): Promise<Release | undefined> {
    const key = `${this.options.keyPrefix}:smtp-mx:${mxHost}`;
    const settings = {
      lockTimeout: this.leaseMs,
      // At least one attempt even with a zero wait.
      acquireTimeout: Math.max(timeoutMs, 1),
      retryInterval: this.retryIntervalMs,
      // Renewed below rather than by the library, whose timer would leave a Redis failure unhandled.
      refreshInterval: 0,
    };
    const semaphore = new Semaphore(this.redis, key, limit, settings);
    let acquired: boolean;
    try {
      acquired = await semaphore.tryAcquire();
    } catch (error) {
      this.reportError(error);
      return this.fallback.acquire(mxHost, limit, timeoutMs);
    }
    if (!acquired) return undefined;
    // The holder renews its lease while the session lasts; a lost renewal ends nothing (the session is short),
    // the slot just stops being counted once the lease runs out.
    const renewal = setInterval(
      () => {
        const renew = new Semaphore(this.redis, key, limit, {
          ...settings,
          identifier: semaphore.identifier,
          acquiredExternally: true,
        });
        renew.tryAcquire().then(
          (renewed) => {
            if (!renewed) this.reportError(new Error(`the lease of an SMTP slot for ${mxHost} ran out`));
          },
          (error: unknown) => this.reportError(error),
        );
      },
      Math.round(this.leaseMs / 3),
    );
    renewal.unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      // On failure the lease runs out on its own.
      semaphore.release().catch((error: unknown) => this.reportError(error));
    };
  }

  private reportError(error: unknown): void {
    this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
  }
}

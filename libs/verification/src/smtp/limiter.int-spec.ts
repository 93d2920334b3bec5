import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisMxLimiter } from './limiter';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** The shared per-MX cap against the real Redis, each test under a key prefix of its own. */
describe('RedisMxLimiter', () => {
  const clients: Redis[] = [];
  const client = () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    return redis;
  };
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  });

  it('holds the cap across limiters sharing one Redis, and hands freed slots on', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const a = new RedisMxLimiter(client(), { keyPrefix });
    const b = new RedisMxLimiter(client(), { keyPrefix });
    const first = await a.acquire('mx.example.test', 2, 1000);
    const second = await b.acquire('mx.example.test', 2, 1000);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(await a.acquire('mx.example.test', 2, 200)).toBeUndefined();
    expect(await b.acquire('mx.example.test', 2, 200)).toBeUndefined();
    // Another MX host has slots of its own.
    const other = await b.acquire('mx.other.test', 2, 200);
    expect(other).toBeDefined();
    const waiting = b.acquire('mx.example.test', 2, 10_000);
    first!();
    const third = await waiting;
    expect(third).toBeDefined();
    for (const release of [second, third, other]) release!();
  });

  it('gives back the slots of a verifier that died holding them once their lease runs out', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const doomed = client();
    const dead = new RedisMxLimiter(doomed, { keyPrefix, leaseMs: 600, onError: () => undefined });
    expect(await dead.acquire('mx.example.test', 1, 1000)).toBeDefined();
    // The process is gone: its connection closes and nobody renews the lease.
    doomed.disconnect();
    const alive = new RedisMxLimiter(client(), { keyPrefix });
    expect(await alive.acquire('mx.example.test', 1, 100)).toBeUndefined();
    const release = await alive.acquire('mx.example.test', 1, 10_000);
    expect(release).toBeDefined();
    release!();
  });

  it('renews the lease of a held slot for as long as its holder lives', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const errors: Error[] = [];
    const holder = new RedisMxLimiter(client(), { keyPrefix, leaseMs: 400, onError: (e) => errors.push(e) });
    const other = new RedisMxLimiter(client(), { keyPrefix, leaseMs: 400 });
    const release = await holder.acquire('mx.example.test', 1, 1000);
    expect(release).toBeDefined();
    // Three lease lengths later the slot is still taken.
    expect(await other.acquire('mx.example.test', 1, 1200)).toBeUndefined();
    release!();
    const next = await other.acquire('mx.example.test', 1, 1000);
    expect(next).toBeDefined();
    next!();
    expect(errors).toEqual([]);
  });

  it('caps in process when Redis cannot be reached, and says so', async () => {
    const errors: string[] = [];
    const unreachable = new Redis('redis://127.0.0.1:9', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    clients.push(unreachable);
    unreachable.on('error', () => undefined);
    const limiter = new RedisMxLimiter(unreachable, {
      keyPrefix: `test-${randomUUID()}`,
      onError: (error) => errors.push(error.message),
    });
    const first = await limiter.acquire('mx.example.test', 1, 100);
    expect(first).toBeDefined();
    expect(await limiter.acquire('mx.example.test', 1, 100)).toBeUndefined();
    expect(errors.length).toBeGreaterThan(0);
    first!();
  });
});

import { randomBytes } from 'node:crypto';
import { eventually } from '@emailverify/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisIdempotencyStore } from './idempotency.store';
import { behavesAsAnIdempotencyStore } from './idempotency.store.contract';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = () => `t_idem_${process.pid}_${randomBytes(3).toString('hex')}`;

describe('RedisIdempotencyStore (real Redis)', () => {
  const redis = new Redis(REDIS_URL);
  const namespace = prefix();
  const store = new RedisIdempotencyStore(redis, namespace, {
    ttlMs: 3_600_000,
    leaseMs: 30_000,
    maxKeys: 5,
  });
  afterAll(async () => {
    const names = await redis.keys(`${namespace}:*`);
    if (names.length > 0) await redis.del(...names);
    await store.close();
  });

  behavesAsAnIdempotencyStore(() => store, 5);

  it('keeps no name of a key in clear, and every name of an account in one hash slot', async () => {
    const scope = { accountId: 'acct-slot', key: 'secret-order-id' };
    await store.begin(scope, 't');
    const names = await redis.keys(`${namespace}:*`);
    expect(names.some((n) => n.includes('secret-order-id'))).toBe(false);
    expect(names.filter((n) => n.includes('{acct-slot}'))).toHaveLength(2);
  });

  describe('with a short lease and TTL', () => {
    const shortNamespace = prefix();
    const short = new RedisIdempotencyStore(new Redis(REDIS_URL), shortNamespace, {
      ttlMs: 1_500,
      leaseMs: 1_000,
      maxKeys: 5,
    });
    afterAll(async () => short.close());

    it('frees a key whose holder stopped renewing (its gateway died), and forgets a kept reply', async () => {
      const leased = { accountId: 'a', key: 'lease' };
      await short.begin(leased, 'dead');
      expect((await short.begin(leased, 'next')).kind).toBe('busy');
      await eventually(async () => expect(await short.begin(leased, 'next')).toEqual({ kind: 'acquired' }));

      const kept = { accountId: 'a', key: 'ttl' };
      await short.begin(kept, 't');
      await short.complete(kept, 't', 'fp', { status: 200, headers: {}, body: Buffer.from('{}') });
      expect((await short.begin(kept, 'u')).kind).toBe('done');
      await eventually(async () => expect(await short.begin(kept, 'u')).toEqual({ kind: 'acquired' }));
    });
  });
});

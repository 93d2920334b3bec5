import { describe, expect, it } from 'vitest';
import { MemoryIdempotencyStore } from './idempotency.store';
import { behavesAsAnIdempotencyStore } from './idempotency.store.contract';

const LIMITS = { ttlMs: 3_600_000, leaseMs: 30_000, maxKeys: 5 };

describe('MemoryIdempotencyStore', () => {
  const store = new MemoryIdempotencyStore(LIMITS);
  behavesAsAnIdempotencyStore(() => store, LIMITS.maxKeys);

  describe('on its clock', () => {
    let now = 0;
    const clocked = new MemoryIdempotencyStore(LIMITS, () => now);
    const reply = { status: 200, headers: {}, body: Buffer.from('{}') };

    it('frees a key whose holder stopped renewing (its gateway died) once the lease has run out', async () => {
      const scope = { accountId: 'a', key: 'lease' };
      await clocked.begin(scope, 'dead');
      now += LIMITS.leaseMs - 1;
      expect((await clocked.begin(scope, 'next')).kind).toBe('busy');
      now += 1;
      expect(await clocked.begin(scope, 'next')).toEqual({ kind: 'acquired' });
    });

    it('forgets a kept reply after the TTL, and its place in the account with it', async () => {
      const scope = { accountId: 'b', key: 'ttl' };
      await clocked.begin(scope, 't');
      await clocked.complete(scope, 't', 'fp', reply);
      now += LIMITS.ttlMs - 1;
      expect((await clocked.begin(scope, 'u')).kind).toBe('done');
      now += 1;
      expect(await clocked.begin(scope, 'u')).toEqual({ kind: 'acquired' });
    });

    it('tells a full account when its oldest key expires', async () => {
      for (let i = 0; i < LIMITS.maxKeys; i++) {
        await clocked.begin({ accountId: 'c', key: `k${i}` }, 't');
        await clocked.complete({ accountId: 'c', key: `k${i}` }, 't', 'fp', reply);
        now += 1000;
      }
      expect(await clocked.begin({ accountId: 'c', key: 'new' }, 't')).toEqual({
        kind: 'full',
        retryAfterMs: LIMITS.ttlMs - LIMITS.maxKeys * 1000,
      });
    });
  });
});

import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { StoredReply } from './idempotency';
import type { IdempotencyStore } from './idempotency.store';

const REPLY: StoredReply = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.from('{"success":true}'),
};

/**
 * What every store does, whatever holds the keys (Redis for replicas, memory for one gateway): `store` gives a
 * store allowing `maxKeys` live keys per account, with a lease and a TTL long enough not to run out here.
 */
export function behavesAsAnIdempotencyStore(store: () => IdempotencyStore, maxKeys: number): void {
  const account = () => `acct-${randomUUID()}`;

  it('lets one request hold a free key; a second meanwhile finds it busy', async () => {
    const scope = { accountId: account(), key: 'order-1' };
    expect(await store().begin(scope, 'first')).toEqual({ kind: 'acquired' });
    expect(await store().begin(scope, 'second')).toEqual({ kind: 'busy', retryAfterMs: expect.any(Number) });
  });

  it('keeps the reply of a completed key for every later request, bytes and headers as they were', async () => {
    const scope = { accountId: account(), key: 'order-2: "quoted" *' };
    await store().begin(scope, 'first');
    expect(await store().complete(scope, 'first', 'fp', REPLY)).toBe(true);
    for (const token of ['second', 'third']) {
      expect(await store().begin(scope, token)).toEqual({ kind: 'done', fingerprint: 'fp', reply: REPLY });
    }
  });

  it('frees a released key for the next request', async () => {
    const scope = { accountId: account(), key: 'order-3' };
    await store().begin(scope, 'first');
    await store().release(scope, 'first');
    expect(await store().begin(scope, 'retry')).toEqual({ kind: 'acquired' });
  });

  it("lets only the lease's holder renew, complete or release it", async () => {
    const scope = { accountId: account(), key: 'order-4' };
    await store().begin(scope, 'holder');
    expect(await store().renew(scope, 'stranger')).toBe(false);
    expect(await store().complete(scope, 'stranger', 'fp', REPLY)).toBe(false);
    await store().release(scope, 'stranger');
    expect((await store().begin(scope, 'other')).kind).toBe('busy');
    expect(await store().renew(scope, 'holder')).toBe(true);
    expect(await store().complete(scope, 'holder', 'fp', REPLY)).toBe(true);
    expect(await store().complete(scope, 'holder', 'fp2', REPLY)).toBe(false);
  });

  it('keeps accounts apart: the same key in two accounts is two keys', async () => {
    const key = 'shared-name';
    const a = { accountId: account(), key };
    await store().begin(a, 'a');
    await store().complete(a, 'a', 'fp-a', REPLY);
    expect(await store().begin({ accountId: account(), key }, 'b')).toEqual({ kind: 'acquired' });
  });

  it(`refuses a new key beyond ${maxKeys} live ones of an account, and still answers the live ones`, async () => {
    const accountId = account();
    for (let i = 0; i < maxKeys; i++) {
      const scope = { accountId, key: `k${i}` };
      expect(await store().begin(scope, `t${i}`)).toEqual({ kind: 'acquired' });
      if (i % 2 === 0) await store().complete(scope, `t${i}`, 'fp', REPLY);
    }
    const full = await store().begin({ accountId, key: 'one-more' }, 'x');
    expect(full).toEqual({ kind: 'full', retryAfterMs: expect.any(Number) });
    expect(full.kind === 'full' && full.retryAfterMs).toBeGreaterThan(0);
    expect((await store().begin({ accountId, key: 'k0' }, 'y')).kind).toBe('done');
    expect((await store().begin({ accountId, key: 'k1' }, 'y')).kind).toBe('busy');
    // A released key is no longer live: its place is free.
    await store().release({ accountId, key: 'k1' }, 't1');
    expect(await store().begin({ accountId, key: 'one-more' }, 'x')).toEqual({ kind: 'acquired' });
  });
}

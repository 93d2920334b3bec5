import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Begun, StoredReply } from './idempotency';

/** One key of one account: keys are scoped to the account, so two accounts never share one. */
export interface KeyScope {
  accountId: string;
  key: string;
}

export interface StoreLimits {
  /** How long a finished request's reply is kept (IDEMPOTENCY_TTL_HOURS). */
  ttlMs: number;
  /** How long a request in progress holds its key without a renewal (a gateway that died frees it then). */
  leaseMs: number;
  /** Live keys (held or kept) per account (IDEMPOTENCY_MAX_KEYS). */
  maxKeys: number;
}

/**
 * Where keys live. A key is free, held by one request in progress (a lease under a random token, renewed while
 * it is served, lost when its gateway dies), or done with the reply that request got. Only the token's holder
 * renews, completes or releases it, so a request whose lease ran out cannot overwrite another's outcome.
 */
export abstract class IdempotencyStore {
  abstract begin(scope: KeyScope, token: string): Promise<Begun>;
  /** False when the lease is no longer this token's. */
  abstract renew(scope: KeyScope, token: string): Promise<boolean>;
  abstract complete(
    scope: KeyScope,
    token: string,
    fingerprint: string,
    reply: StoredReply,
  ): Promise<boolean>;
  abstract release(scope: KeyScope, token: string): Promise<void>;
  abstract close(): Promise<void>;
}

/** The key's name in the store: its hash, so any printable character (`:`, `*`, spaces) is just a key. */
const member = (key: string): string => createHash('sha256').update(key).digest('base64url');

interface WireReply {
  status: number;
  headers: StoredReply['headers'];
  body: string;
}
const encode = (reply: StoredReply): string =>
  JSON.stringify({ status: reply.status, headers: reply.headers, body: reply.body.toString('base64') });
const decode = (text: string): StoredReply => {
  const wire = JSON.parse(text) as WireReply;
  return { status: wire.status, headers: wire.headers, body: Buffer.from(wire.body, 'base64') };
};

/**
 * Starts a request with a key (KEYS[1] the key's hash, KEYS[2] the account's sorted set of live keys scored by
 * expiry): the stored outcome, the lease's time left, the account's fullness, or the lease taken.
 * ARGV: now, lease ms, max keys, token, member, ttl ms.
 */
const BEGIN = `
local state = redis.call('hget', KEYS[1], 'state')
if state == 'done' then
  return {'done', redis.call('hget', KEYS[1], 'fp'), redis.call('hget', KEYS[1], 'reply')}
end
if state == 'lease' then
  return {'busy', tostring(redis.call('pttl', KEYS[1]))}
end
local now = tonumber(ARGV[1])
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if redis.call('zcard', KEYS[2]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
  return {'full', tostring(tonumber(oldest[2]) - now)}
end
redis.call('del', KEYS[1])
redis.call('hset', KEYS[1], 'state', 'lease', 'token', ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[5])
redis.call('pexpire', KEYS[2], math.max(tonumber(ARGV[6]), tonumber(ARGV[2])))
return {'acquired'}`;

/** Extends the lease of token ARGV[1] by ARGV[2] ms (ARGV[3] now, ARGV[4] member); 0 when it is not held. */
const RENEW = `
if redis.call('hget', KEYS[1], 'token') ~= ARGV[1] or redis.call('hget', KEYS[1], 'state') ~= 'lease' then
  return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('zadd', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[2]), ARGV[4])
return 1`;

/** Turns token ARGV[1]'s lease into the outcome (ARGV[2] ttl ms, ARGV[3] now, ARGV[4] member, ARGV[5..6]). */
const COMPLETE = `
if redis.call('hget', KEYS[1], 'token') ~= ARGV[1] or redis.call('hget', KEYS[1], 'state') ~= 'lease' then
  return 0
end
redis.call('hset', KEYS[1], 'state', 'done', 'fp', ARGV[5], 'reply', ARGV[6])
redis.call('hdel', KEYS[1], 'token')
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('zadd', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[2]), ARGV[4])
if redis.call('pttl', KEYS[2]) < tonumber(ARGV[2]) then redis.call('pexpire', KEYS[2], ARGV[2]) end
return 1`;

/** Frees token ARGV[1]'s lease (ARGV[2] member). */
const RELEASE = `
if redis.call('hget', KEYS[1], 'token') ~= ARGV[1] or redis.call('hget', KEYS[1], 'state') ~= 'lease' then
  return 0
end
redis.call('del', KEYS[1])
redis.call('zrem', KEYS[2], ARGV[2])
return 1`;

type Script = (k1: string, k2: string, ...args: Array<string | number>) => Promise<unknown>;

/**
 * Keys in Redis, seen by every gateway replica. Each step is one script, so two gateways racing for a key see
 * one winner. Both names of an account share a hash tag (`{account}`), so the scripts also run on a cluster.
 */
export class RedisIdempotencyStore extends IdempotencyStore {
  private readonly scripts: Record<'begin' | 'renew' | 'complete' | 'release', Script>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: StoreLimits,
  ) {
    super();
    const define = (name: string, lua: string): Script => {
      redis.defineCommand(name, { numberOfKeys: 2, lua });
      return (...args) => (redis as unknown as Record<string, Script>)[name]!(...args);
    };
    this.scripts = {
      begin: define('emailverifyIdemBegin', BEGIN),
      renew: define('emailverifyIdemRenew', RENEW),
      complete: define('emailverifyIdemComplete', COMPLETE),
      release: define('emailverifyIdemRelease', RELEASE),
    };
  }

  private names(scope: KeyScope): [string, string, string] {
    const id = member(scope.key);
    const account = `${this.prefix}:idem:{${scope.accountId}}`;
    return [`${account}:${id}`, account, id];
  }

  async begin(scope: KeyScope, token: string): Promise<Begun> {
    const [record, account, id] = this.names(scope);
    const { leaseMs, maxKeys, ttlMs } = this.limits;
    const reply = (await this.scripts.begin(
      record,
      account,
      Date.now(),
      leaseMs,
      maxKeys,
      token,
      id,
      ttlMs,
    )) as [string, string?, string?];
    switch (reply[0]) {
      case 'done':
        return { kind: 'done', fingerprint: reply[1]!, reply: decode(reply[2]!) };
      case 'busy':
        return { kind: 'busy', retryAfterMs: Math.max(0, Number(reply[1])) };
      case 'full':
        return { kind: 'full', retryAfterMs: Math.max(0, Number(reply[1])) };
      default:
        return { kind: 'acquired' };
    }
  }

  async renew(scope: KeyScope, token: string): Promise<boolean> {
    const [record, account, id] = this.names(scope);
    return (await this.scripts.renew(record, account, token, this.limits.leaseMs, Date.now(), id)) === 1;
  }

  async complete(scope: KeyScope, token: string, fingerprint: string, reply: StoredReply): Promise<boolean> {
    const [record, account, id] = this.names(scope);
    const { ttlMs } = this.limits;
    const done = await this.scripts.complete(
      record,
      account,
      token,
      ttlMs,
      Date.now(),
      id,
      fingerprint,
      encode(reply),
    );
    return done === 1;
  }

  async release(scope: KeyScope, token: string): Promise<void> {
    const [record, account, id] = this.names(scope);
    await this.scripts.release(record, account, token, id);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

interface MemoryEntry {
  expiresAt: number;
  lease?: string;
  done?: { fingerprint: string; reply: StoredReply };
}

/** Keys in this process, for a single gateway without REDIS_URL (and the controller specs): the same rules. */
export class MemoryIdempotencyStore extends IdempotencyStore {
  private readonly accounts = new Map<string, Map<string, MemoryEntry>>();

  constructor(
    private readonly limits: StoreLimits,
    private readonly now: () => number = () => Date.now(),
  ) {
    super();
  }

  /** The account's live keys, the expired ones dropped. */
  private live(accountId: string): Map<string, MemoryEntry> {
    let keys = this.accounts.get(accountId);
    if (!keys) this.accounts.set(accountId, (keys = new Map()));
    const now = this.now();
    for (const [id, entry] of keys) if (entry.expiresAt <= now) keys.delete(id);
    return keys;
  }

  begin(scope: KeyScope, token: string): Promise<Begun> {
    const keys = this.live(scope.accountId);
    const id = member(scope.key);
    const entry = keys.get(id);
    const now = this.now();
    if (entry?.done) return Promise.resolve({ kind: 'done', ...entry.done });
    if (entry) return Promise.resolve({ kind: 'busy', retryAfterMs: entry.expiresAt - now });
    if (keys.size >= this.limits.maxKeys) {
      const oldest = Math.min(...[...keys.values()].map((e) => e.expiresAt));
      return Promise.resolve({ kind: 'full', retryAfterMs: oldest - now });
    }
    keys.set(id, { lease: token, expiresAt: now + this.limits.leaseMs });
    return Promise.resolve({ kind: 'acquired' });
  }

  private held(scope: KeyScope, token: string): MemoryEntry | undefined {
    const entry = this.live(scope.accountId).get(member(scope.key));
    return entry?.lease === token ? entry : undefined;
  }

  renew(scope: KeyScope, token: string): Promise<boolean> {
    const entry = this.held(scope, token);
    if (entry) entry.expiresAt = this.now() + this.limits.leaseMs;
    return Promise.resolve(entry !== undefined);
  }

  complete(scope: KeyScope, token: string, fingerprint: string, reply: StoredReply): Promise<boolean> {
    const entry = this.held(scope, token);
    if (!entry) return Promise.resolve(false);
    delete entry.lease;
    entry.done = { fingerprint, reply };
    entry.expiresAt = this.now() + this.limits.ttlMs;
    return Promise.resolve(true);
  }

  release(scope: KeyScope, token: string): Promise<void> {
    if (this.held(scope, token)) this.live(scope.accountId).delete(member(scope.key));
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

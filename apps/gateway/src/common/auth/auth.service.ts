import { hash } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Broadcasts, type KeyChangedBroadcast, type ResolvedKey, Subjects } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config';

interface CacheEntry {
  key: ResolvedKey;
  expiresAt: number;
}

/**
 * Resolves API keys through the credits service, caching hits briefly. Revocations (and style changes) are
 * broadcast by the credits service and evict the entry on every gateway at once.
 */
@Injectable()
export class AuthService implements OnModuleInit {
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * Counts the key-change broadcasts received. A resolution that was under way when one came may carry what the
   * change undid (a revoked key still found), so it is used for its own request but not cached.
   */
  private changes = 0;

  constructor(
    private readonly bus: MessageBus,
    @Inject(GATEWAY_CONFIG) private readonly config: Readonly<GatewayConfig>,
  ) {}

  onModuleInit(): void {
    this.bus.onBroadcast<KeyChangedBroadcast>(Broadcasts.keyChanged, (event) => this.evict(event));
  }

  /** What the key's hash is looked up (and cached) under: SHA-256 in hex, in one call (no Hash object). */
  hash(apiKey: string): string {
    return hash('sha256', apiKey, 'hex');
  }

  /** The key of this hash as this gateway resolved it within AUTH_CACHE_TTL_MS, if it did. */
  cached(keyHash: string): ResolvedKey | undefined {
    const cached = this.cache.get(keyHash);
    return cached && cached.expiresAt > Date.now() ? cached.key : undefined;
  }

  /** The key of this hash, from the cache or the credits service; undefined when it is unknown or revoked. */
  async resolve(keyHash: string, requestId: string): Promise<ResolvedKey | undefined> {
    const cached = this.cached(keyHash);
    if (cached) return cached;
    const changesBefore = this.changes;
    const reply = await this.bus.request(Subjects.creditsAuthResolve, { keyHash }, { requestId });
    if (!reply.found) {
      this.cache.delete(keyHash);
      return undefined;
    }
    if (this.config.AUTH_CACHE_TTL_MS > 0 && this.changes === changesBefore) {
      if (this.cache.size > 100_000) this.cache.clear();
      // A key that expires sooner is trusted until its own expiry only.
      const until = Date.now() + this.config.AUTH_CACHE_TTL_MS;
      const keyEnds = reply.key.expiresAt === undefined ? until : Date.parse(reply.key.expiresAt);
      this.cache.set(keyHash, { key: reply.key, expiresAt: Math.min(until, keyEnds) });
    }
    return reply.key;
  }

  private evict(event: KeyChangedBroadcast): void {
    this.changes += 1;
    if (event.keyHash) this.cache.delete(event.keyHash);
    for (const [hash, entry] of this.cache) {
      if (entry.key.apiKeyId === event.apiKeyId) this.cache.delete(hash);
    }
  }
}

import { createHash } from 'node:crypto';
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

  constructor(
    private readonly bus: MessageBus,
    @Inject(GATEWAY_CONFIG) private readonly config: Readonly<GatewayConfig>,
  ) {}

  onModuleInit(): void {
    this.bus.onBroadcast<KeyChangedBroadcast>(Broadcasts.keyChanged, (event) => this.evict(event));
  }

  async resolve(apiKey: string, requestId: string): Promise<ResolvedKey | undefined> {
    const keyHash = createHash('sha256').update(apiKey, 'utf8').digest('hex');
    const cached = this.cache.get(keyHash);
    if (cached && cached.expiresAt > Date.now()) return cached.key;
    const reply = await this.bus.request(Subjects.creditsAuthResolve, { keyHash }, { requestId });
    if (!reply.found) {
      this.cache.delete(keyHash);
      return undefined;
    }
    if (this.config.AUTH_CACHE_TTL_MS > 0) {
      if (this.cache.size > 100_000) this.cache.clear();
      this.cache.set(keyHash, { key: reply.key, expiresAt: Date.now() + this.config.AUTH_CACHE_TTL_MS });
    }
    return reply.key;
  }

  private evict(event: KeyChangedBroadcast): void {
    if (event.keyHash) this.cache.delete(event.keyHash);
    for (const [hash, entry] of this.cache) {
      if (entry.key.apiKeyId === event.apiKeyId) this.cache.delete(hash);
    }
  }
}

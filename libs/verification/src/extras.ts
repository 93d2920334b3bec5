import { createHash } from 'node:crypto';
import { type Entry, InFlight, TtlCache } from './cache';
import type { Clock, FetchLike } from './dependencies';

export interface ExtrasOptions {
  /** `https://gravatar.com/avatar`; empty disables the lookup. */
  gravatarBaseUrl: string;
  /** `https://rdap.org`; empty disables the lookup. */
  rdapBaseUrl: string;
  /** Bound on each HTTP request: extras must never hold up a verification for long. */
  httpTimeoutMs: number;
  /** How long a definite answer is reused. */
  cacheTtlMs: number;
}

export interface GravatarInfo {
  hasGravatar: boolean;
  gravatarUrl: string;
}

/** The answer when nothing is known (or nothing was asked). */
export const NO_GRAVATAR: GravatarInfo = { hasGravatar: false, gravatarUrl: '' };
const DAY_MS = 86_400_000;
/** RDAP answers for big registries can be large; more than this is not a domain object worth parsing. */
const MAX_RDAP_BYTES = 1_000_000;

/**
 * Gravatar presence and domain age, which inform but never change a status. Every failure (timeout, HTTP
 * error, bad JSON) yields the neutral answer, and only definite answers are cached, so an outage does not
 * stick.
 */
export class ExtrasLookup {
  private readonly gravatarCache: TtlCache<string, GravatarInfo>;
  private readonly ageCache: TtlCache<string, number>;
  /**
   * Lookups under way, joined: the addresses of one domain verified at once ask RDAP once between them, and an
   * address verified twice at once asks Gravatar once.
   */
  private readonly gravatarAsked = new InFlight<string, GravatarInfo>();
  private readonly registrationAsked = new InFlight<string, number | undefined>();
  private readonly gravatarBase: string;
  private readonly rdapBase: string;

  constructor(
    private readonly options: ExtrasOptions,
    private readonly fetch: FetchLike,
    private readonly clock: Clock,
  ) {
    this.gravatarCache = new TtlCache(clock);
    this.ageCache = new TtlCache(clock);
    this.gravatarBase = options.gravatarBaseUrl.replace(/\/+$/, '');
    this.rdapBase = options.rdapBaseUrl.replace(/\/+$/, '');
  }

  async gravatar(email: string): Promise<GravatarInfo> {
    if (!this.gravatarBase) return NO_GRAVATAR;
    const hash = gravatarHash(email);
    const cached = this.gravatarCache.get(hash);
    if (cached) return cached;
    return this.gravatarAsked.run(hash, () => this.askGravatar(hash));
  }

  private async askGravatar(hash: string): Promise<GravatarInfo> {
    const gravatarUrl = `${this.gravatarBase}/${hash}`;
    try {
      const response = await this.fetch(`${gravatarUrl}?d=404`, {
        method: 'GET',
        signal: AbortSignal.timeout(this.options.httpTimeoutMs),
      });
      // Only the status matters; dropping the body frees the connection.
      await response.body?.cancel().catch(() => undefined);
      let info: GravatarInfo | undefined;
      if (response.status === 200) info = { hasGravatar: true, gravatarUrl };
      else if (response.status === 404) info = NO_GRAVATAR;
      if (!info) return NO_GRAVATAR;
      this.gravatarCache.set(hash, info, this.options.cacheTtlMs);
      return info;
    } catch {
      return NO_GRAVATAR;
    }
  }

  /** What `gravatar` answers without asking: undefined when it would have to ask. */
  cachedGravatar(email: string): GravatarInfo | undefined {
    if (!this.gravatarBase) return NO_GRAVATAR;
    return this.gravatarCache.get(gravatarHash(email));
  }

  /** Whole days since the domain's registration event; 0 when unknown. */
  async domainAge(domain: string): Promise<number> {
    if (!this.rdapBase || domain.startsWith('[')) return 0;
    return this.ageOf(await this.registrationTime(domain));
  }

  /**
   * What `domainAge` rests on, without asking: the registration time (undefined when there is none to go by)
   * and until when it is cached (never when nothing is looked up); undefined when it would have to ask.
   * ageOf turns it into the age.
   */
  cachedRegistration(domain: string): Entry<number | undefined> | undefined {
    if (!this.rdapBase || domain.startsWith('[')) return { value: undefined, expiresAt: Infinity };
    const cached = this.ageCache.entry(domain);
    if (cached === undefined) return undefined;
    return { value: Number.isNaN(cached.value) ? undefined : cached.value, expiresAt: cached.expiresAt };
  }

  /** Whole days since the registration time; 0 when unknown. */
  ageOf(registered: number | undefined): number {
    if (registered === undefined) return 0;
    return Math.max(0, Math.floor((this.clock.now() - registered) / DAY_MS));
  }

  private async registrationTime(domain: string): Promise<number | undefined> {
    const cached = this.ageCache.get(domain);
    if (cached !== undefined) return Number.isNaN(cached) ? undefined : cached;
    return this.registrationAsked.run(domain, () => this.askRdap(domain));
  }

  private async askRdap(domain: string): Promise<number | undefined> {
    try {
      const response = await this.fetch(`${this.rdapBase}/domain/${encodeURIComponent(domain)}`, {
        method: 'GET',
        headers: { accept: 'application/rdap+json, application/json' },
        signal: AbortSignal.timeout(this.options.httpTimeoutMs),
      });
      if (response.status === 404) {
        await response.body?.cancel().catch(() => undefined);
        // NaN marks "the registry has no such domain": a definite answer worth caching.
        this.ageCache.set(domain, Number.NaN, this.options.cacheTtlMs);
        return undefined;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        return undefined;
      }
      const text = await response.text();
      if (text.length > MAX_RDAP_BYTES) return undefined;
      const registered = registrationEvent(JSON.parse(text));
      if (registered !== undefined) this.ageCache.set(domain, registered, this.options.cacheTtlMs);
      return registered;
    } catch {
      return undefined;
    }
  }
}

/** Gravatar keys on the trimmed, lowercased address; SHA-256 is the hash it documents today. */
function gravatarHash(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
}

/** The `registration` event date of an RFC 9083 domain object, as epoch milliseconds. */
export function registrationEvent(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null || !('events' in body) || !Array.isArray(body.events)) {
    return undefined;
  }
  for (const event of body.events as unknown[]) {
    if (typeof event !== 'object' || event === null) continue;
    const { eventAction, eventDate } = event as { eventAction?: unknown; eventDate?: unknown };
    if (eventAction !== 'registration' || typeof eventDate !== 'string') continue;
    const time = Date.parse(eventDate);
    if (!Number.isNaN(time)) return time;
  }
  return undefined;
}

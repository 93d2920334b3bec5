import type { Clock } from './dependencies';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * In-memory cache with a time-to-live per entry and a size bound, so a long-running worker that sees many
 * domains cannot grow without limit. Eviction drops the oldest insertion (Map keeps insertion order).
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

  constructor(
    private readonly clock: Clock,
    // Large enough for a file spread over tens of thousands of domains; a domain fact is a few hundred bytes.
    private readonly maxEntries = 100_000,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Joins concurrent requests for the same key into one lookup: a bulk list with a thousand addresses on one
 * domain must not send a thousand MX queries.
 */
export class InFlight<K, V> {
  private readonly pending = new Map<K, Promise<V>>();

  run(key: K, work: () => Promise<V>): Promise<V> {
    const existing = this.pending.get(key);
    if (existing) return existing;
    const promise = work().finally(() => this.pending.delete(key));
    this.pending.set(key, promise);
    return promise;
  }
}

import type { Clock } from './dependencies';

/** A cached value and when it expires (clock milliseconds). */
export interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
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
    return this.entry(key)?.value;
  }

  /** The fresh entry of the key, with its expiry; undefined when there is none. */
  entry(key: K): Entry<V> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: K, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.setUntil(key, value, this.clock.now() + ttlMs);
  }

  /** As set, with the time the entry expires instead of its time-to-live. */
  setUntil(key: K, value: V, expiresAt: number): void {
    if (expiresAt <= this.clock.now()) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt });
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

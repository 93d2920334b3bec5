export type Release = () => void;

interface Slot {
  active: number;
  waiters: Array<(release: Release) => void>;
}

/**
 * Caps concurrent work per key (per MX host, so one receiving server never sees more than `limit` probe
 * sessions from this process). Waiting is bounded: when no slot frees in time, `acquire` gives undefined and
 * the caller degrades instead of queueing forever.
 */
export class KeyedSemaphore {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
  }

  /** @param limit this key's cap, when it differs from the semaphore's (a provider rule's) */
  acquire(key: string, timeoutMs: number, limit = this.limit): Promise<Release | undefined> {
    const slot = this.slots.get(key) ?? { active: 0, waiters: [] };
    this.slots.set(key, slot);
    if (slot.active < limit) {
      slot.active++;
      return Promise.resolve(this.releaser(key, slot));
    }
    return new Promise((resolve) => {
      const grant = (release: Release) => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        const index = slot.waiters.indexOf(grant);
        if (index >= 0) slot.waiters.splice(index, 1);
        resolve(undefined);
      }, timeoutMs);
      slot.waiters.push(grant);
    });
  }

  /** Sessions running for `key`; for metrics and tests. */
  active(key: string): number {
    return this.slots.get(key)?.active ?? 0;
  }

  private releaser(key: string, slot: Slot): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slot.waiters.shift();
      // The slot passes straight to the next waiter, so `active` stays the same and no newcomer can overtake.
      if (next) return next(this.releaser(key, slot));
      slot.active--;
      if (slot.active === 0 && slot.waiters.length === 0) this.slots.delete(key);
    };
  }
}

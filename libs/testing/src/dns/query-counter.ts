import { canonicalName } from '../world-spec';

/** Counts DNS questions by name and type, so tests can assert what an engine cached. */
export class QueryCounter {
  private readonly counts = new Map<string, number>();

  record(name: string, type: string): void {
    const key = `${canonicalName(name)} ${type}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  count(name?: string, type?: string): number {
    if (name === undefined) return sum(this.counts.values());
    const prefix = `${canonicalName(name)} `;
    const wanted = type === undefined ? undefined : `${prefix}${type.toUpperCase()}`;
    let total = 0;
    for (const [key, count] of this.counts) {
      if (wanted === undefined ? key.startsWith(prefix) : key === wanted) total += count;
    }
    return total;
  }

  reset(): void {
    this.counts.clear();
  }
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

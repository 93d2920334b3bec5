interface Waiting<T, R> {
  items: readonly T[];
  settle: (results: R[]) => void;
  fail: (err: unknown) => void;
}

/**
 * Writes (or sends) items in batches, one batch at a time and without a timer: what is added while nothing is under
 * way goes out at once, alone; what is added while a batch is under way goes out together as soon as it ends, at
 * most `maxBatch` items a batch. A group added with `addAll` is never split (one larger than `maxBatch` goes alone).
 * An idle service waits for nothing; a busy one makes one statement, commit or message of the work of many
 * requests. Writing one batch at a time also keeps a process's batches from waiting on each other's row locks.
 */
export class Batches<T, R = void> {
  private readonly queue: Waiting<T, R>[] = [];
  private writing = false;
  private idle?: Promise<void>;
  private wakeIdle?: () => void;
  private queued = 0;
  private inWrite = 0;

  /**
   * `writeBatch` writes the items it is given and returns one result per item, in their order (or nothing, when
   * items have no result).
   */
  constructor(
    private readonly writeBatch: (items: T[]) => Promise<readonly R[] | void>,
    private readonly maxBatch: number,
  ) {}

  /** Items handed over and not written yet. */
  get pending(): number {
    return this.queued + this.inWrite;
  }

  /** Resolves to the item's result once its batch is written; rejects when that write failed. */
  add(item: T): Promise<R> {
    return new Promise<R>((settle, fail) => this.enqueue([item], (results) => settle(results[0]!), fail));
  }

  /** Resolves to the items' results, in their order, once the one batch that carried them all is written. */
  addAll(items: readonly T[]): Promise<R[]> {
    return new Promise<R[]>((settle, fail) => this.enqueue(items, settle, fail));
  }

  /** Waits until every item handed over so far has been written (or has failed to be). */
  async flush(): Promise<void> {
    while (this.writing) await this.idle;
  }

  private enqueue(items: readonly T[], settle: (results: R[]) => void, fail: (err: unknown) => void): void {
    this.queue.push({ items, settle, fail });
    this.queued += items.length;
    if (!this.writing) void this.run();
  }

  private async run(): Promise<void> {
    this.writing = true;
    this.idle = new Promise((wake) => (this.wakeIdle = wake));
    while (this.queue.length > 0) {
      let count = 0;
      let taken = 0;
      while (
        taken < this.queue.length &&
        (taken === 0 || count + this.queue[taken]!.items.length <= this.maxBatch)
      ) {
        count += this.queue[taken]!.items.length;
        taken += 1;
      }
      const batch = this.queue.splice(0, taken);
      this.queued -= count;
      this.inWrite = count;
      const items = batch.length === 1 ? [...batch[0]!.items] : batch.flatMap((w) => w.items);
      try {
        const results = (await this.writeBatch(items)) ?? [];
        let at = 0;
        for (const w of batch) {
          w.settle(results.slice(at, at + w.items.length) as R[]);
          at += w.items.length;
        }
      } catch (err) {
        for (const w of batch) w.fail(err);
      }
      this.inWrite = 0;
    }
    this.writing = false;
    this.wakeIdle!();
  }
}

interface Waiting<T, R> {
  item: T;
  settle: (result: R) => void;
  fail: (err: unknown) => void;
}

/**
 * Writes items in batches, one batch at a time: an item that arrives while a batch is being written goes with the
 * next one. When items are few, each is written at once, alone; under load, one write (one statement, one commit)
 * takes many. Writing one batch at a time also keeps a process's batches from waiting on each other's row locks.
 */
export class Batches<T, R> {
  private readonly queue: Waiting<T, R>[] = [];
  private writing?: Promise<void>;
  private inWrite = 0;

  /** `writeBatch` writes the items it is given and returns one result per item, in their order. */
  constructor(
    private readonly writeBatch: (items: T[]) => Promise<readonly R[]>,
    private readonly maxBatch: number,
  ) {}

  /** Items handed over and not written yet. */
  get pending(): number {
    return this.queue.length + this.inWrite;
  }

  /** Resolves to the item's result once its batch is written; rejects when that write failed. */
  add(item: T): Promise<R> {
    return new Promise<R>((settle, fail) => {
      this.queue.push({ item, settle, fail });
      this.write();
    });
  }

  /** Waits until every item handed over so far has been written (or has failed to be). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private write(): void {
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inWrite = batch.length;
    this.writing = this.writeBatch(batch.map((w) => w.item))
      .then(
        (results) => batch.forEach((w, i) => w.settle(results[i]!)),
        (err: unknown) => batch.forEach((w) => w.fail(err)),
      )
      .finally(() => {
        this.writing = undefined;
        this.inWrite = 0;
        this.write();
      });
  }
}

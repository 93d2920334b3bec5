/**
 * Sends work in batches without a timer: what is added while nothing is under way goes out at once, and what is
 * added while a batch is under way goes out together as soon as it ends (at most `max` items a batch; a group
 * added at once is never split). An idle service waits for nothing; a busy one sends one statement or message
 * for the work of many requests.
 */
export class Batcher<T, R = void> {
  private queue: Array<{ items: readonly T[]; done: (reply: R) => void; failed: (err: unknown) => void }> =
    [];
  private running = false;

  constructor(
    private readonly send: (items: T[]) => Promise<R>,
    private readonly max: number,
  ) {}

  /**
   * Adds a group of items; settles when the batch that carried them has been sent (or failed), with what
   * sending the whole batch returned.
   */
  add(items: readonly T[]): Promise<R> {
    const sent = new Promise<R>((done, failed) => this.queue.push({ items, done, failed }));
    if (!this.running) void this.run();
    return sent;
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      let count = 0;
      let taken = 0;
      while (
        taken < this.queue.length &&
        (taken === 0 || count + this.queue[taken]!.items.length <= this.max)
      ) {
        count += this.queue[taken]!.items.length;
        taken += 1;
      }
      const batch = this.queue.splice(0, taken);
      try {
        const reply = await this.send(batch.flatMap((b) => b.items));
        for (const b of batch) b.done(reply);
      } catch (err) {
        for (const b of batch) b.failed(err);
      }
    }
    this.running = false;
  }
}

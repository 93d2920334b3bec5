import type {
  AttemptOutcome,
  AttemptRecord,
  AttemptResult,
  DeliveriesRepository,
} from './deliveries.repository';

/** The most attempts one transaction stores. */
const MAX_BATCH = 256;

interface Waiting {
  result: AttemptResult;
  settle: (recorded: boolean) => void;
  fail: (err: unknown) => void;
}

/**
 * Stores the outcomes of attempts in batches, one batch at a time: an outcome that arrives while a batch is
 * being written goes with the next one. When deliveries are few, each outcome is written at once, alone; under
 * load, one transaction stores many. Writing one batch at a time also keeps a process's batches from waiting
 * on each other's row locks.
 */
export class AttemptRecorder {
  private readonly queue: Waiting[] = [];
  private writing?: Promise<void>;
  private inWrite = 0;

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly rules: { disableAfterDays: number },
  ) {}

  /** Outcomes handed over and not stored yet. */
  get pending(): number {
    return this.queue.length + this.inWrite;
  }

  /** Resolves to whether the attempt was stored (false: its claim had expired and another process took over). */
  record(attempt: AttemptRecord, outcome: AttemptOutcome): Promise<boolean> {
    return new Promise<boolean>((settle, fail) => {
      this.queue.push({ result: { attempt, outcome }, settle, fail });
      this.write();
    });
  }

  /** Waits until every outcome handed over so far has been written (or has failed to be). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private write(): void {
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, MAX_BATCH);
    this.inWrite = batch.length;
    this.writing = this.repo
      .recordAttempts(
        batch.map((w) => w.result),
        this.rules,
      )
      .then(
        (recorded) => batch.forEach((w, i) => w.settle(recorded[i] ?? false)),
        (err: unknown) => batch.forEach((w) => w.fail(err)),
      )
      .finally(() => {
        this.writing = undefined;
        this.inWrite = 0;
        this.write();
      });
  }
}

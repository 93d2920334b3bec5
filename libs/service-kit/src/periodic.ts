import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Upkeep a service runs on a timer (sweeps, purges). A run never overlaps the previous one, a failure is
 * logged and retried at the next tick, and the timer neither keeps the process alive nor outlives shutdown.
 * A service's own task is an `@Injectable()` subclass that passes its name, interval and work to this
 * constructor (e.g. the credits service's ReservationSweep).
 */
export class PeriodicTask implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  /** One run now, unless one is under way (then that one). */
  runOnce(): Promise<void> {
    this.running ??= this.task()
      .catch((err: unknown) => this.logger.warn({ err, task: this.name }, `${this.name} failed`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

import type { FactoryProvider, InjectionToken, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from './nest';

/**
 * Upkeep a service runs on a timer (sweeps, purges). A run never overlaps the previous one, a failure is
 * logged and retried at the next tick, and the timer neither keeps the process alive nor outlives shutdown.
 * A service declares its own with periodicTask().
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

/** What a service's periodic task does, and how often. */
export interface PeriodicWork {
  intervalMs: number;
  /** One run. A count it returns (rows swept, say) is logged with `done` when above zero. */
  run: () => Promise<number | void>;
  /** The log line of a run that did something, and the count's field name in it. */
  done?: { message: string; count: string };
}

/**
 * The provider of a service's periodic task: `name` in its logs, and its work, made from the dependencies
 * `inject` names (as a factory provider's `inject`) by `work`. The task starts with the module and stops with
 * the application (PeriodicTask).
 */
export function periodicTask(
  name: string,
  inject: InjectionToken[],
  work: (...dependencies: never[]) => PeriodicWork,
): FactoryProvider<PeriodicTask> {
  return {
    provide: Symbol(name),
    inject: [...inject, LOGGER],
    useFactory: (...dependencies: unknown[]) => {
      const logger = dependencies.pop() as Logger;
      const { intervalMs, run, done } = work(...(dependencies as never[]));
      return new PeriodicTask(
        name,
        intervalMs,
        async () => {
          const count = await run();
          if (done && (count ?? 0) > 0) logger.info({ [done.count]: count }, done.message);
        },
        logger,
      );
    },
  };
}

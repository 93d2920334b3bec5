import type { InjectionToken, OnApplicationShutdown, OnModuleInit, Provider } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from './nest';

/**
 * Upkeep a service runs on a timer (sweeps, purges). A run never overlaps the previous one, a failure is
 * logged and retried at the next tick, and the timer neither keeps the process alive nor outlives shutdown.
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

/**
 * A Nest provider of one PeriodicTask under its own token; `run` receives the providers named in `inject`, in
 * that order.
 */
export function periodicTask(definition: {
  provide: InjectionToken;
  name: string;
  intervalMs: number;
  inject: InjectionToken[];
  run: (...deps: never[]) => Promise<unknown>;
}): Provider {
  return {
    provide: definition.provide,
    inject: [...definition.inject, LOGGER],
    useFactory: (...args: unknown[]) => {
      const logger = args.pop() as Logger;
      const run = async () => void (await definition.run(...(args as never[])));
      return new PeriodicTask(definition.name, definition.intervalMs, run, logger);
    },
  };
}

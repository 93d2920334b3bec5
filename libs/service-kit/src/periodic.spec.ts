import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { LOGGER } from './nest';
import { PeriodicTask, periodicTask } from './periodic';

const quiet = () => {
  const logger = pino({ level: 'silent' });
  return { logger, warn: vi.spyOn(logger, 'warn') };
};

describe('PeriodicTask', () => {
  it('runs on every tick, never two runs at once', async () => {
    vi.useFakeTimers();
    try {
      let running = 0;
      let most = 0;
      let runs = 0;
      let release!: () => void;
      const task = new PeriodicTask(
        'sweep',
        100,
        async () => {
          runs += 1;
          running += 1;
          most = Math.max(most, running);
          await new Promise<void>((resolve) => (release = resolve));
          running -= 1;
        },
        quiet().logger,
      );
      task.onModuleInit();
      await vi.advanceTimersByTimeAsync(350);
      expect(runs).toBe(1);
      release();
      await vi.advanceTimersByTimeAsync(100);
      expect(runs).toBe(2);
      expect(most).toBe(1);
      release();
      await task.onApplicationShutdown();
      await vi.advanceTimersByTimeAsync(1000);
      expect(runs).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('logs a failed run and runs again at the next tick', async () => {
    const { logger, warn } = quiet();
    let calls = 0;
    const task = new PeriodicTask(
      'purge',
      1000,
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
      },
      logger,
    );
    await task.runOnce();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ task: 'purge' }), 'purge failed');
    await task.runOnce();
    expect(calls).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('waits for the run under way when the service shuts down', async () => {
    let finished = false;
    const task = new PeriodicTask(
      'sweep',
      1000,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished = true;
      },
      quiet().logger,
    );
    void task.runOnce();
    await task.onApplicationShutdown();
    expect(finished).toBe(true);
  });

  it('periodicTask: a provider whose work comes from its dependencies, a count above zero logged', async () => {
    const { logger } = quiet();
    const info = vi.spyOn(logger, 'info');
    const swept = [0, 3];
    const SWEPT = Symbol('swept');
    const provider = periodicTask('sweep', [SWEPT], (counts: number[]) => ({
      intervalMs: 1000,
      run: async () => counts.shift(),
      done: { message: 'rows swept', count: 'rows' },
    }));
    expect(provider.inject).toEqual([SWEPT, LOGGER]);
    const task = await provider.useFactory(swept, logger);
    expect(task.name).toBe('sweep');
    await task.runOnce();
    expect(info).not.toHaveBeenCalled();
    await task.runOnce();
    expect(info).toHaveBeenCalledWith({ rows: 3 }, 'rows swept');
  });
});

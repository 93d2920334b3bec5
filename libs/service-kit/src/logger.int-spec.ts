import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { eventually, repoRoot } from '@emailverify/testing';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * A process of the suite (the built logger, as the apps use it) that logs `lines` lines of about 600 bytes,
 * then ends as a graceful shutdown does: `drainLogs`, then exit. Its stdout is a pipe to this test, as under a
 * supervisor or a log shipper.
 */
const started: ChildProcess[] = [];

function stoppingProcess(lines: number) {
  const logger = path.join(repoRoot, 'dist/libs/service-kit/src/logger.js');
  const script = `
    const { createLogger, drainLogs } = require(${JSON.stringify(logger)});
    const logger = createLogger('verifier', 'info');
    const padding = 'x'.repeat(500);
    for (let i = 0; i < ${lines}; i++) logger.info({ i, padding }, 'handed back');
    drainLogs(300).then(() => {
      process.stderr.write('flushed\\n');
      process.exit(0);
    });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  return child;
}

function collect(stream: NodeJS.ReadableStream): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

const exitCode = (child: ReturnType<typeof spawn>) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('the log at the end of a graceful shutdown', () => {
  // A process that did not end (the failure these tests look for) must not outlive them.
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('writes out every line still held in memory, in order, when stdout is read', async () => {
    const child = stoppingProcess(500);
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    expect(await exitCode(child)).toBe(0);
    expect(stderr()).toBe('flushed\n');
    const numbers = stdout()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual([...Array(500).keys()]);
  });

  it('lets the process end when the reader of its stdout takes nothing', async () => {
    const child = stoppingProcess(5000); // about 3 MiB, far more than the pipe and this side's buffer hold
    const stderr = collect(child.stderr);
    child.stdout.pause(); // a stalled reader: nothing is read until the process has ended
    expect(await exitCode(child)).toBe(0); // before, the last write-out retried for ever
    expect(stderr()).toBe('flushed\n');
    // What the pipe took is there, and the rest was dropped.
    const stdout = collect(child.stdout);
    child.stdout.resume();
    await new Promise((resolve) => child.stdout.once('end', resolve));
    const complete = stdout()
      .split('\n')
      .filter((line) => line.startsWith('{"level":30'));
    expect(complete.length).toBeGreaterThan(0);
    expect(complete.length).toBeLessThan(5000);
    expect(JSON.parse(complete[0])).toMatchObject({ service: 'verifier', msg: 'handed back' });
  });
});

/** A process that logs `lines` short lines through the gateway's logger, then runs `then`. */
function loggingProcess(lines: number, then: string) {
  const logger = path.join(repoRoot, 'dist/libs/service-kit/src/logger.js');
  const script = `
    const { createLogger, exitAfterLogOnFatalError, flushLogs } = require(${JSON.stringify(logger)});
    exitAfterLogOnFatalError(); // as runMain does for every app
    const logger = createLogger('gateway', 'info');
    for (let i = 0; i < ${lines}; i++) logger.info({ i }, 'request completed');
    ${then}
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  return child;
}

/** The numbers of the complete lines written so far (a write may still be under way). */
const numbersIn = (text: string) =>
  text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { i: number }).i);

describe('lines written without blocking the process', () => {
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('reach stdout, in order, in a process that goes on running', async () => {
    // Alive until the test ends it: nothing at exit can have written the lines.
    const child = loggingProcess(200, 'setInterval(() => {}, 1000);');
    const stdout = collect(child.stdout);
    await eventually(() => expect(numbersIn(stdout())).toEqual([...Array(200).keys()]));
    expect(child.exitCode).toBeNull();
  });

  it('a lone line reaches stdout while the process is idle, held back by nothing', async () => {
    const child = loggingProcess(1, 'setInterval(() => {}, 1000);');
    const stdout = collect(child.stdout);
    await eventually(() => expect(numbersIn(stdout())).toEqual([0]));
    expect(child.exitCode).toBeNull();
  });

  // At exit a write already handed to the thread pool may land after the lines written out synchronously
  // (pino's asynchronous destination; docs/performance.md, "log buffering"): every line arrives, once.
  it('are all written, each once, when the process exits right after logging them', async () => {
    const child = loggingProcess(2000, 'process.exit(0);');
    const stdout = collect(child.stdout);
    expect(await exitCode(child)).toBe(0);
    expect(numbersIn(stdout()).sort((a, b) => a - b)).toEqual([...Array(2000).keys()]);
  });

  it('are all written, each once, when the process dies of an uncaught error', async () => {
    const child = loggingProcess(2000, "setImmediate(() => { throw new Error('fatal'); });");
    const stdout = collect(child.stdout);
    expect(await exitCode(child)).toBe(1);
    expect(numbersIn(stdout()).sort((a, b) => a - b)).toEqual([...Array(2000).keys()]);
  });

  it('are written out by the end of a graceful shutdown, before the process ends by its signal', async () => {
    // SIGKILL: no exit handler runs, so only flushLogs can have written them.
    const child = loggingProcess(2000, "flushLogs(300); process.kill(process.pid, 'SIGKILL');");
    const stdout = collect(child.stdout);
    await exitCode(child);
    expect(child.signalCode).toBe('SIGKILL');
    expect(numbersIn(stdout()).sort((a, b) => a - b)).toEqual([...Array(2000).keys()]);
  });

  it('wait for a reader of stdout that falls behind, and leave in order once it reads again', async () => {
    // About 1.2 MiB: far more than the pipe holds, so most of it waits in the process while nothing is read.
    const child = loggingProcess(20_000, 'setInterval(() => {}, 1000);');
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(child.exitCode).toBeNull(); // never blocked or ended by the stalled reader
    const stdout = collect(child.stdout);
    child.stdout.resume();
    await eventually(() => expect(numbersIn(stdout()).length).toBe(20_000), { timeoutMs: 20_000 });
    expect(numbersIn(stdout())).toEqual([...Array(20_000).keys()]);
  });

  it('let the process end when the reader of its stdout takes nothing', async () => {
    const child = loggingProcess(
      20_000,
      "flushLogs(300); process.stderr.write('flushed\\n'); process.exit(0);",
    );
    const stderr = collect(child.stderr);
    const stdout = collect(child.stdout); // listened to first: the exit does not resume a stdout listened to
    child.stdout.pause(); // a stalled reader: nothing is read until the process has ended
    expect(await exitCode(child)).toBe(0);
    expect(stderr()).toBe('flushed\n');
    child.stdout.resume();
    await new Promise((resolve) => child.stdout.once('end', resolve));
    // What the pipe took is there, whole lines in order, and the rest was dropped.
    const numbers = numbersIn(stdout());
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers.length).toBeLessThan(20_000);
    expect(numbers).toEqual([...Array(numbers.length).keys()]);
  });
});

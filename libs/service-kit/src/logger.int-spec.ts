import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { eventually, repoRoot } from '@emailverify/testing';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * A process of the suite (the built logger, as the apps use it) that logs `lines` lines of about 600 bytes,
 * then ends as a graceful shutdown does: `flushLogs`, then exit. Its stdout is a pipe to this test, as under a
 * supervisor or a log shipper.
 */
const started: ChildProcess[] = [];

function stoppingProcess(lines: number) {
  const logger = path.join(repoRoot, 'dist/libs/service-kit/src/logger.js');
  const script = `
    const { createLogger, flushLogs } = require(${JSON.stringify(logger)});
    const logger = createLogger('verifier', 'info');
    const padding = 'x'.repeat(500);
    for (let i = 0; i < ${lines}; i++) logger.info({ i, padding }, 'handed back');
    flushLogs(300);
    process.stderr.write('flushed\\n');
    process.exit(0);
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

/** A process that logs `lines` short lines through a logger holding them for `holdMs`, then runs `then`. */
function holdingProcess(lines: number, holdMs: number, then: string) {
  const logger = path.join(repoRoot, 'dist/libs/service-kit/src/logger.js');
  const script = `
    const { createLogger, flushLogs } = require(${JSON.stringify(logger)});
    const logger = createLogger('gateway', 'info', ${holdMs});
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

describe('lines held to leave together', () => {
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('leave once the hold is over, in order, in a process that goes on running', async () => {
    // Alive until the test ends it: only the hold's end can have written the lines.
    const child = holdingProcess(200, 50, 'setInterval(() => {}, 1000);');
    const stdout = collect(child.stdout);
    await eventually(() => expect(numbersIn(stdout())).toEqual([...Array(200).keys()]));
    expect(child.exitCode).toBeNull();
  });

  it('leave when the process exits before the hold is over', async () => {
    const child = holdingProcess(200, 60_000, 'process.exit(0);');
    const stdout = collect(child.stdout);
    expect(await exitCode(child)).toBe(0);
    expect(numbersIn(stdout())).toEqual([...Array(200).keys()]);
  });

  it('leave when the process dies of an uncaught error before the hold is over', async () => {
    const child = holdingProcess(200, 60_000, "setTimeout(() => { throw new Error('fatal'); }, 10);");
    const stdout = collect(child.stdout);
    expect(await exitCode(child)).toBe(1);
    expect(numbersIn(stdout())).toEqual([...Array(200).keys()]);
  });

  it('are written out by the end of a graceful shutdown, before the process ends by its signal', async () => {
    // SIGKILL: no exit handler runs, so only flushLogs can have written them.
    const child = holdingProcess(200, 60_000, "flushLogs(300); process.kill(process.pid, 'SIGKILL');");
    const stdout = collect(child.stdout);
    await exitCode(child);
    expect(child.signalCode).toBe('SIGKILL');
    expect(numbersIn(stdout())).toEqual([...Array(200).keys()]);
  });

  it('wait for a reader of stdout that falls behind, and leave in order once it reads again', async () => {
    // About 1.2 MiB: far more than the pipe holds, so most of it waits in the process while nothing is read.
    const child = holdingProcess(20_000, 20, 'setInterval(() => {}, 1000);');
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(child.exitCode).toBeNull(); // never blocked or ended by the stalled reader
    const stdout = collect(child.stdout);
    child.stdout.resume();
    await eventually(() => expect(numbersIn(stdout()).length).toBe(20_000), { timeoutMs: 20_000 });
    expect(numbersIn(stdout())).toEqual([...Array(20_000).keys()]);
  });

  it('let the process end when the reader of its stdout takes nothing', async () => {
    const child = holdingProcess(
      20_000,
      60_000,
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

  it('leave at once when many wait, without waiting for the hold', async () => {
    // About 5,000 lines of 60 bytes: several times what is held; the hold itself (a minute) never ends.
    const child = holdingProcess(5000, 60_000, 'setInterval(() => {}, 1000);');
    const stdout = collect(child.stdout);
    await eventually(() => expect(numbersIn(stdout()).length).toBeGreaterThan(4000));
    expect(numbersIn(stdout())).toEqual([...Array(numbersIn(stdout()).length).keys()]);
  });
});

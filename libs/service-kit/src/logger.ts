import { writeSync } from 'node:fs';
import { currentRequestId } from '@emailverify/messaging';
import pino, { type DestinationStream, type Logger } from 'pino';

type Destination = ReturnType<typeof pino.destination>;

/** Every destination this process logs to, so the end of a graceful shutdown can write out what they hold. */
const destinations = new Set<Destination>();
/** Every hold of lines (loggers with `holdMs`), written out with the destinations. */
const holds = new Set<HeldLines>();

/** How long the last synchronous write-out may wait for a reader of stdout that takes nothing. */
const FINAL_FLUSH_WAIT_MS = 3000;

/**
 * When a destination stops waiting for a full stdout to take its lines. Until the process's last write-out it
 * waits as long as it takes (a reader that falls behind catches up, and nothing is dropped); the last one
 * (`flushLogs`, or the write-out when the process exits) waits at most `FINAL_FLUSH_WAIT_MS`, so a stalled
 * reader of stdout can never keep a stopping process alive.
 */
let giveUpAt = Number.POSITIVE_INFINITY;
const retryWhileWaiting = (): boolean => Date.now() < giveUpAt;
let exitLimited = false;
function limitFinalWait(waitMs: number): void {
  giveUpAt = Math.min(giveUpAt, Date.now() + waitMs);
}

/** How long the last write-out sleeps before it offers a full stdout the rest again. */
const FULL_STDOUT_PAUSE_MS = 10;
/** How soon a hold offers a full stdout what it did not take (the pause sonic-boom makes too). */
const FULL_STDOUT_RETRY_MS = 100;
const pauseCell = new Int32Array(new SharedArrayBuffer(4));

const stdoutFull = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EAGAIN' || code === 'EBUSY';
};

/**
 * With a hold, lines leave at once when this many characters wait, without waiting for the hold to end.
 */
const HELD_CHARS = 8 * 1024;

/**
 * The hold for a process that logs a line per request or delivery (the gateway's access lines, the webhooks'
 * attempts): one write to stdout per many lines instead of one per line, which costs more than the line itself.
 */
export const PER_REQUEST_LOG_HOLD_MS = 100;

/**
 * Lines held for up to `holdMs` (or until `HELD_CHARS` wait), then written to stdout together, by the holder
 * itself: in a list joined once per write (a destination's own hold, sonic-boom's `minLength`, appends each line
 * to one string and measures its UTF-8 length again for every line, copying the held text once per line).
 *
 * The write is a synchronous call on a non-blocking stdout (a pipe or socket, which opening process.stdout makes
 * non-blocking), so it never waits for the reader: what a full stdout does not take is kept, ahead of the lines
 * held since, and offered again when the next hold ends. No write is ever left to the thread pool, whose writes
 * an exiting process does not wait for: the last write-out (`writeOut`, at the end of a graceful shutdown and at
 * exit) writes what is kept, then what is held, in order.
 */
class HeldLines implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;
  /** What stdout did not take yet (it was full), oldest of all. */
  private unwritten: Buffer | undefined;
  private readonly timer: NodeJS.Timeout;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly fd: number,
    holdMs: number,
  ) {
    this.timer = setInterval(() => this.release(), holdMs).unref();
  }

  write(line: string): void {
    if (this.closed) return;
    this.lines.push(line);
    this.chars += line.length;
    // A full stdout is offered more a little later, not at every line.
    if (this.chars >= HELD_CHARS && this.unwritten === undefined) this.release();
  }

  /** Writes what stdout takes now: what it did not take before, then the held lines. */
  release(): void {
    if (this.closed) return;
    try {
      if (this.unwritten !== undefined) this.unwritten = this.offer(this.unwritten);
      if (this.unwritten === undefined) {
        const text = this.take();
        if (text !== '') this.unwritten = this.offer(text);
      }
    } catch {
      // stdout is gone (its reader closed it): nothing more can be written.
      this.close();
      return;
    }
    // stdout is full: what it did not take (and what is held since) is offered again a little later.
    if (this.unwritten !== undefined)
      this.retry ??= setTimeout(this.retryRelease, FULL_STDOUT_RETRY_MS).unref();
  }

  private readonly retryRelease = (): void => {
    this.retry = undefined;
    this.release();
  };

  /** Writes everything synchronously, waiting for a full stdout until the final wait is over (or throws). */
  writeOut(): void {
    if (this.closed) return;
    const unwritten = this.unwritten;
    this.unwritten = undefined;
    const text = this.take();
    if (unwritten !== undefined) this.writeAll(unwritten);
    if (text !== '') this.writeAll(Buffer.from(text, 'utf8'));
  }

  /** Nothing more can be written: what is held, and what comes, is dropped. */
  close(): void {
    clearInterval(this.timer);
    clearTimeout(this.retry);
    this.closed = true;
    this.unwritten = undefined;
    this.take();
  }

  /** One write of `data`; what stdout did not take, if anything. */
  private offer(data: string | Buffer): Buffer | undefined {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let written = 0;
    try {
      written = writeSync(this.fd, bytes);
    } catch (err) {
      if (!stdoutFull(err)) throw err;
    }
    return written < bytes.length ? bytes.subarray(written) : undefined;
  }

  private writeAll(data: Buffer): void {
    let rest = data;
    while (rest.length > 0) {
      try {
        rest = rest.subarray(writeSync(this.fd, rest));
      } catch (err) {
        if (!stdoutFull(err) || !retryWhileWaiting()) throw err;
        Atomics.wait(pauseCell, 0, 0, FULL_STDOUT_PAUSE_MS);
      }
    }
  }

  private take(): string {
    if (this.lines.length === 0) return '';
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    return text;
  }
}

/**
 * Writes every line still in memory to stdout, synchronously. A destination or hold whose stdout took nothing
 * in time (or that is closed) is given up: nothing more is written to it.
 */
function writeOutAll(): void {
  for (const destination of destinations) {
    try {
      destination.flushSync();
    } catch {
      // Not open yet, already closed, or its reader took nothing in time: nothing more can be written, so the
      // write-out at exit must not try again.
      destinations.delete(destination);
      destination.destroy();
    }
  }
  for (const held of holds) {
    try {
      held.writeOut();
    } catch {
      held.close();
      holds.delete(held);
    }
  }
}

/**
 * One JSON line per event, as every service logs (pino). A line written while a message is being handled names
 * the request it belongs to (`requestId`, from the message's X-Request-Id), unless it names one itself.
 *
 * Lines go to stdout without blocking the event loop: a line waits in memory while the previous write is under
 * way, then they leave together, so a reader of stdout that falls behind (a supervisor, a log shipper on a busy
 * machine) never holds up requests. What is still in memory is written out synchronously at the end of a
 * graceful shutdown (`flushLogs`, before the process ends by its signal, which would otherwise drop it, its last
 * words first: what a stopping verifier handed back, why a merge stopped) and when the process exits (a fatal
 * error included).
 *
 * With `holdMs`, lines are also held for up to that long (or until `HELD_CHARS` wait) to leave together: for a
 * process that writes a line per request, where one write per line costs more than the line itself
 * (HeldLines, which writes them itself); held lines are written out like the rest.
 */
export function createLogger(service: string, level: string, holdMs = 0): Logger {
  if (!exitLimited) {
    // Registered before any destination, so it runs before a destination's own write-out at exit (which then
    // finds nothing left).
    exitLimited = true;
    process.once('exit', () => {
      limitFinalWait(FINAL_FLUSH_WAIT_MS);
      writeOutAll();
    });
  }
  // Opening process.stdout makes a piped stdout non-blocking (libuv): a write that a full pipe cannot take then
  // fails with EAGAIN (or takes part of it), which is tried again later (and by the last write-out only for a
  // while), instead of blocking the whole process inside the kernel until its reader reads.
  void process.stdout;
  let stream: DestinationStream;
  if (holdMs > 0) {
    const held = new HeldLines(1, holdMs);
    holds.add(held);
    stream = held;
  } else {
    const destination = pino.destination({ dest: 1, sync: false, retryEAGAIN: retryWhileWaiting });
    destinations.add(destination);
    stream = destination;
  }
  return pino(loggerOptions(service, level), stream);
}

/** The options of every service's logger (createLogger): what its lines hold, whatever they are written to. */
export function loggerOptions(service: string, level: string): pino.LoggerOptions {
  return {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // pino merges the line's own fields over these.
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
    redact: {
      paths: ['req.headers["svc-api-key"]', 'req.headers["service-api-key"]', 'req.headers.authorization'],
      censor: '[redacted]',
    },
  };
}

/**
 * Writes every line still held in memory to stdout, synchronously: the last step of a graceful shutdown. When
 * stdout has not taken everything within `waitMs` (its reader stalled), it keeps what it took and the rest is
 * dropped.
 */
export function flushLogs(waitMs = FINAL_FLUSH_WAIT_MS): void {
  limitFinalWait(waitMs);
  writeOutAll();
}

export type { Logger };

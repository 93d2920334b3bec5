import { currentRequestId } from '@emailverify/messaging';
import pino, { type Logger } from 'pino';

type Destination = ReturnType<typeof pino.destination>;

/**
 * Every destination this process logs to, so the end of a graceful shutdown can write out what they hold, with
 * the bytes handed to it and the bytes its writes reported done (sonic-boom's `write` event): equal when no line
 * waits in memory or in a write under way.
 */
const destinations = new Map<Destination, { handed: number; written: number; caughtUp: Set<() => void> }>();

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

/**
 * Writes every line still in memory to stdout, synchronously. A destination whose stdout took nothing in time
 * (or that is closed) is given up: nothing more is written to it.
 */
function writeOutAll(): void {
  for (const destination of destinations.keys()) {
    try {
      destination.flushSync();
    } catch {
      // Not open yet, already closed, or its reader took nothing in time: nothing more can be written, so the
      // write-out at exit must not try again.
      destinations.delete(destination);
      destination.destroy();
    }
  }
}

/**
 * One JSON line per event, as every service logs (pino). A line written while a message is being handled names
 * the request it belongs to (`requestId`, from the message's X-Request-Id), unless it names one itself.
 *
 * Lines go to stdout without blocking the event loop: a line waits in memory while the previous write is under
 * way, then they leave together, so a reader of stdout that falls behind (a supervisor, a log shipper on a busy
 * machine) never holds up requests. At the end of a graceful shutdown (`drainLogs`, before the process ends by
 * its signal, which would otherwise drop it, its last words first: what a stopping verifier handed back, why a
 * merge stopped) and on an uncaught error (`exitAfterLogOnFatalError`) the process waits for its lines to reach
 * stdout; what is still in memory when it exits otherwise is written out synchronously.
 *
 * This is pino's own asynchronous destination as its documentation describes it (`pino.destination` with
 * `sync: false`), with no `minLength`: a line is never held back for company, so it reaches stdout as soon as the
 * previous write is done. Under load the lines that arrive during one write leave together in the next, which is
 * what a hold would buy (docs/performance.md, "log buffering": holding lines for 100 ms showed no gain at the
 * gateway's load). `retryEAGAIN` bounds only the last, synchronous write-out. The cost of pino's way, for a
 * process that exits without draining (`process.exit` at once): a write already handed to the thread pool may
 * land after the lines written out synchronously, or be refused by a full stdout and lost.
 */
export function createLogger(service: string, level: string): Logger {
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
  const destination = pino.destination({ dest: 1, sync: false, retryEAGAIN: retryWhileWaiting });
  const counts = { handed: 0, written: 0, caughtUp: new Set<() => void>() };
  destinations.set(destination, counts);
  destination.on('write', (bytes: number) => {
    counts.written += bytes;
    if (counts.written >= counts.handed) for (const done of counts.caughtUp) done();
  });
  const streamWrite = (line: string): string => {
    counts.handed += Buffer.byteLength(line);
    return line;
  };
  return pino({ ...loggerOptions(service, level), hooks: { streamWrite } }, destination);
}

/**
 * Waits, at most `waitMs`, until every line handed to the log is on stdout, the event loop running meanwhile so
 * the writes under way finish (and a full stdout is tried again); then writes out synchronously what is left.
 * The write-out alone (`flushLogs`) cannot know what became of a write already handed to the thread pool, which
 * a full stdout refuses while the process ends: its lines would be lost.
 */
export async function drainLogs(waitMs = FINAL_FLUSH_WAIT_MS): Promise<void> {
  const until = Date.now() + waitMs;
  await Promise.all(
    [...destinations.values()].map((counts) => {
      if (counts.written >= counts.handed) return undefined;
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          counts.caughtUp.delete(done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        counts.caughtUp.add(done);
      });
    }),
  );
  flushLogs(Math.max(0, until - Date.now()));
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

let fatalHandled = false;

/**
 * Makes an uncaught error end the process as Node would (its stack on stderr, exit code 1), but only once the log
 * is on stdout (`drainLogs`): Node's own ending runs only the synchronous write-out, which loses a write under way
 * when stdout is full, and the lines just before a crash are the ones wanted. `runMain` calls it for every app.
 */
export function exitAfterLogOnFatalError(): void {
  if (fatalHandled) return;
  fatalHandled = true;
  let ending = false;
  process.on('uncaughtException', (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
    if (ending) return;
    ending = true;
    void drainLogs().finally(() => process.exit(1));
  });
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

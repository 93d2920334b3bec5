import { currentRequestId } from '@emailverify/messaging';
import pino, { type Logger } from 'pino';

type Destination = ReturnType<typeof pino.destination>;

/** Every destination this process logs to, so the end of a graceful shutdown can write out what they hold. */
const destinations = new Set<Destination>();

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
 * This is pino's own asynchronous destination as its documentation describes it (`pino.destination` with
 * `sync: false`), with no `minLength`: a line is never held back for company, so it reaches stdout as soon as the
 * previous write is done. Under load the lines that arrive during one write leave together in the next, which is
 * what a hold would buy (docs/performance.md, "log buffering": holding lines for 100 ms showed no gain at the
 * gateway's load). `retryEAGAIN` bounds only the last, synchronous write-out. The cost of pino's way: when the
 * process ends, a write already handed to the thread pool may land after the lines written out synchronously, so
 * the last lines can arrive out of order (each of them once).
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
  destinations.add(destination);
  return pino(loggerOptions(service, level), destination);
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

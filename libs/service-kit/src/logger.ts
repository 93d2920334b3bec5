import { currentRequestId } from '@emailverify/messaging';
import pino, { type Logger } from 'pino';

type Destination = ReturnType<typeof pino.destination>;

/** Every destination this process logs to, so the end of a graceful shutdown can write out what they hold. */
const destinations = new Set<Destination>();

/**
 * One JSON line per event, as every service logs (pino). A line written while a message is being handled names
 * the request it belongs to (`requestId`, from the message's X-Request-Id), unless it names one itself.
 *
 * Lines go to stdout without blocking the event loop: a line waits in memory while the previous write is under
 * way, then they leave together, so a reader of stdout that falls behind (a supervisor, a log shipper on a busy
 * machine) never holds up requests. What is still in memory is written out synchronously at the end of a
 * graceful shutdown (`flushLogs`, before the process ends by its signal, which would otherwise drop it, its last
 * words first: what a stopping verifier handed back, why a merge stopped) and when the process exits.
 */
export function createLogger(service: string, level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: false });
  destinations.add(destination);
  return pino(
    {
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
    },
    destination,
  );
}

/** Writes every line still held in memory to stdout, synchronously: the last step of a graceful shutdown. */
export function flushLogs(): void {
  for (const destination of destinations) {
    try {
      destination.flushSync();
    } catch {
      // Not open yet, or already closed: it holds nothing that could still be written.
    }
  }
}

export type { Logger };

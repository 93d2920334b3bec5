import { currentRequestId } from '@emailverify/messaging';
import pino, { type Logger } from 'pino';

/**
 * One JSON line per event, as every service logs (pino). A line written while a message is being handled names
 * the request it belongs to (`requestId`, from the message's X-Request-Id), unless it names one itself.
 *
 * Lines are written to stdout as they are logged (synchronously): a process that ends by its signal once its
 * graceful shutdown is done, or that is killed, has printed everything it logged. Buffered lines would be lost
 * with the process, its last words (what a stopping verifier handed back, why a merge stopped) first.
 */
export function createLogger(service: string, level: string): Logger {
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
    pino.destination({ dest: 1, sync: true }),
  );
}

export type { Logger };

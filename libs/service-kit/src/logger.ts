import { currentRequestId } from '@emailverify/messaging';
import pino, { type Logger } from 'pino';

/**
 * One JSON line per event, as every service logs (pino). A line written while a message is being handled names
 * the request it belongs to (`requestId`, from the message's X-Request-Id), unless it names one itself.
 */
export function createLogger(service: string, level: string): Logger {
  return pino({
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
  });
}

export type { Logger };

import pino, { type Logger } from 'pino';

/** One JSON line per event, as every service logs (pino). */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers["svc-api-key"]', 'req.headers["service-api-key"]', 'req.headers.authorization'],
      censor: '[redacted]',
    },
  });
}

export type { Logger };

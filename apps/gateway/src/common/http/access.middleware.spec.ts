import { withRequestId } from '@emailverify/messaging';
import { loggerOptions } from '@emailverify/service-kit';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AccessEntry, accessLineWriter } from './access.middleware';

/** A logger configured as every service's, writing into `lines`. */
function capturingLogger(level: string) {
  const lines: string[] = [];
  const logger = pino(loggerOptions('gateway', level), { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** The line every access line must be for `entry`: the path without its query string, and no header. */
function expectedLine(entry: AccessEntry, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const path = entry.url.split('?')[0];
  return {
    level: 30,
    time: '2026-11-26T15:07:29.874Z',
    service: 'gateway',
    ...extra,
    req: { id: entry.id, method: entry.method, path },
    res: { statusCode: entry.statusCode },
    responseTime: entry.responseTimeMs,
    ...(entry.accountId === undefined ? {} : { accountId: entry.accountId }),
    ...(entry.apiKeyId === undefined ? {} : { apiKeyId: entry.apiKeyId }),
    msg: entry.msg,
  };
}

const completed: AccessEntry = {
  id: 'd7f3c1e2-59a4-4c8b-9b1e-2f0c8a6d4e11',
  method: 'GET',
  url: '/v1/verify/disposable?email=someone%40mailinator.com',
  statusCode: 200,
  responseTimeMs: 3,
  accountId: '4b9e6a52-1c7d-4f0e-8a3b-6d2c9e1f7a80',
  apiKeyId: '0e8d7c6b-5a49-4382-9170-fedcba987654',
  msg: 'request completed',
};

describe('access lines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T15:07:29.874Z'));
  });
  afterEach(() => vi.useRealTimers());

  it.each<[string, AccessEntry]>([
    ['a completed request', completed],
    ['a request without a caller', { ...completed, accountId: undefined, apiKeyId: undefined }],
    ['an aborted request', { ...completed, statusCode: 200, responseTimeMs: 0, msg: 'request aborted' }],
    ['an errored request', { ...completed, statusCode: 503, responseTimeMs: 30001, msg: 'request errored' }],
    ['a refused request', { ...completed, statusCode: 401, apiKeyId: undefined, accountId: undefined }],
    [
      'a path with quotes, backslashes, control characters and other scripts',
      { ...completed, url: '/v1/"x"\\y\u0001\u007f/é€😀\ud800\u2028?api_key=ev_secret', method: 'POST' },
    ],
    ['a caller-chosen request id', { ...completed, id: 'A.b_c:d-1' }],
  ])('tell the request, its outcome and caller, never its query: %s', (_what, entry) => {
    const { logger, lines } = capturingLogger('info');
    accessLineWriter(logger)(entry);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual(expectedLine(entry));
    expect(lines[0]).not.toContain('api_key');
    expect(lines[0]).not.toContain('someone');
  });

  it('name the request id of the message being handled, as every other line does', () => {
    const { logger, lines } = capturingLogger('info');
    withRequestId('msg-req-1', () => accessLineWriter(logger)(completed));
    expect(JSON.parse(lines[0]!)).toEqual(expectedLine(completed, { requestId: 'msg-req-1' }));
  });

  it('are not written when the level is above info, and are once it is lowered', () => {
    const { logger, lines } = capturingLogger('warn');
    const write = accessLineWriter(logger);
    write(completed);
    expect(lines).toEqual([]);
    logger.level = 'debug';
    write(completed);
    expect(lines).toHaveLength(1);
  });

  it('take the time of each line', () => {
    const { logger, lines } = capturingLogger('info');
    const write = accessLineWriter(logger);
    write(completed);
    vi.setSystemTime(new Date('2026-11-26T15:07:29.875Z'));
    write(completed);
    vi.setSystemTime(new Date('2026-11-26T15:07:29.874Z'));
    write(completed);
    expect(lines.map((line) => (JSON.parse(line) as { time: string }).time)).toEqual([
      '2026-11-26T15:07:29.874Z',
      '2026-11-26T15:07:29.875Z',
      '2026-11-26T15:07:29.874Z',
    ]);
  });
});

import { withRequestId } from '@emailverify/messaging';
import { loggerOptions } from '@emailverify/service-kit';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AccessEntry, accessLineWriter, accessRequest } from './access.middleware';

/** A logger configured as every service's, writing into `lines`. */
function capturingLogger(level: string) {
  const lines: string[] = [];
  const logger = pino(loggerOptions('gateway', level), { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** The line the access log wrote for this entry before it was put together directly: through logger.info. */
function throughPino(logger: pino.Logger, entry: AccessEntry): void {
  logger.child({}, { redact: { paths: [] } }).info(
    {
      req: accessRequest({ id: entry.id, method: entry.method, url: entry.url }),
      res: { statusCode: entry.statusCode },
      responseTime: entry.responseTimeMs,
      accountId: entry.accountId,
      apiKeyId: entry.apiKeyId,
    },
    entry.msg,
  );
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
  ])('are what logger.info wrote: %s', (_what, entry) => {
    const direct = capturingLogger('info');
    const before = capturingLogger('info');
    accessLineWriter(direct.logger)(entry);
    throughPino(before.logger, entry);
    expect(direct.lines).toEqual(before.lines);
    expect(direct.lines).toHaveLength(1);
    expect(JSON.parse(direct.lines[0]!)).toMatchObject({ level: 30, service: 'gateway', msg: entry.msg });
    expect(direct.lines[0]).not.toContain('api_key');
    expect(direct.lines[0]).not.toContain('someone');
  });

  it('name the request id of the message being handled, as every other line does', () => {
    const direct = capturingLogger('info');
    const before = capturingLogger('info');
    withRequestId('msg-req-1', () => {
      accessLineWriter(direct.logger)(completed);
      throughPino(before.logger, completed);
    });
    expect(direct.lines).toEqual(before.lines);
    expect(direct.lines[0]).toContain('"requestId":"msg-req-1"');
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

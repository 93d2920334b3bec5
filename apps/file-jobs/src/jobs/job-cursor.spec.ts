import { DomainError, FILE_JOB_CURSOR_MAX_LENGTH } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './job-cursor';

const ID = '6f1c2b4e-0000-4000-8000-000000000001';
const CREATED = '2026-11-29T05:04:07.123456Z';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

function refusal(text: string): unknown {
  try {
    decodeCursor(text);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('job list cursor', () => {
  it('round-trips the creation time to the microsecond and the id', () => {
    const cursor = encodeCursor({ createdAt: CREATED, id: ID });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor.length).toBeLessThanOrEqual(FILE_JOB_CURSOR_MAX_LENGTH);
    expect(decodeCursor(cursor)).toEqual({ createdAt: CREATED, id: ID });
  });

  it('shows nothing readable: the time and the id are not in the text', () => {
    const cursor = encodeCursor({ createdAt: CREATED, id: ID });
    expect(cursor).not.toContain('2026');
    expect(cursor).not.toContain(ID);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['too long', 'A'.repeat(FILE_JOB_CURSOR_MAX_LENGTH + 1)],
    ['no id', b64(CREATED)],
    ['an extra part', b64(`${CREATED} ${ID} x`)],
    ['milliseconds only', b64(`2026-11-29T05:04:07.123Z ${ID}`)],
    ['a date that does not exist', b64(`2026-02-30T05:04:07.123456Z ${ID}`)],
    ['month 13', b64(`2026-13-01T05:04:07.123456Z ${ID}`)],
    ['hour 24', b64(`2026-11-29T24:04:07.123456Z ${ID}`)],
    ['an id that is not a UUID', b64(`${CREATED} 1 OR 1=1`)],
    ['SQL in the time', b64(`2026-11-29'; DROP TABLE files.jobs;-- ${ID}`)],
  ])('refuses %s with 400 INVALID_REQUEST naming cursor', (_, text) => {
    const err = refusal(text);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).toBody()).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'cursor' },
      message: expect.stringContaining('cursor'),
    });
  });
});

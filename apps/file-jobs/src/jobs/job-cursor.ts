import { DomainError, FILE_JOB_CURSOR_MAX_LENGTH, isUuid } from '@emailverify/contracts';

/**
 * Where a page of an account's job list ends: the last job's creation time, to the microsecond PostgreSQL
 * keeps, and its id, which breaks ties. Jobs are listed by (created_at desc, id desc), so the next page starts
 * strictly after this pair: a job is never listed twice nor skipped, whatever is created meanwhile.
 */
export interface JobCursor {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, as the list query gives it (a Date would lose the microseconds). */
  createdAt: string;
  id: string;
}

const CREATED_AT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})\d{3}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The cursor customers see: opaque (base64url), so nobody builds one or relies on its insides. */
export function encodeCursor(cursor: JobCursor): string {
  return Buffer.from(`${cursor.createdAt} ${cursor.id}`, 'utf8').toString('base64url');
}

/**
 * Reads a cursor that came from a customer, checking every part, so nothing but a real timestamp and a UUID
 * reaches the query; anything else is 400 INVALID_REQUEST naming `cursor`.
 */
export function decodeCursor(text: string): JobCursor {
  if (text.length > FILE_JOB_CURSOR_MAX_LENGTH || !BASE64URL.test(text)) throw malformed();
  const [createdAt, id, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split(' ');
  if (createdAt === undefined || id === undefined || rest.length > 0) throw malformed();
  const time = CREATED_AT.exec(createdAt);
  // A date that does not exist (month 13, 31 February) would make PostgreSQL refuse the whole query.
  if (!time || !sameInstant(`${time[1]}Z`) || !isUuid(id)) throw malformed();
  return { createdAt, id };
}

function sameInstant(iso: string): boolean {
  const date = new Date(iso);
  return !Number.isNaN(date.getTime()) && date.toISOString() === iso;
}

function malformed(): DomainError {
  return new DomainError(
    'INVALID_REQUEST',
    'cursor is not valid: pass the next_cursor of the previous page unchanged',
    { field: 'cursor' },
  );
}

import { DomainError, USAGE_DEFAULT_DAYS, USAGE_RANGE_MAX_DAYS } from '@emailverify/contracts';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Earlier days name nothing the service holds, and PostgreSQL has no year 0. */
const EARLIEST = '1970-01-01';

const invalid = (field: string, message: string) => new DomainError('INVALID_REQUEST', message, { field });

/** A calendar date (YYYY-MM-DD, UTC) that exists: 2026-02-30 does not. */
export function parseDay(field: string, value: string): string {
  if (!DATE.test(value) || !realDay(value))
    throw invalid(field, `${field} must be a date such as 2026-11-28 (YYYY-MM-DD)`);
  return value;
}

/**
 * An ISO 8601 instant: a date-time with a time zone, or (unless `dateTimeOnly`) a date, which means the start of
 * that day (UTC), or its end when `endOfDay` (the day is included).
 */
export function parseInstant(
  field: string,
  value: string,
  endOfDay: boolean,
  { dateTimeOnly = false } = {},
): Date {
  const shape = dateTimeOnly
    ? `${field} must be a date-time with a time zone, such as 2027-06-30T00:00:00Z`
    : `${field} must be a date (2026-11-28) or a date-time with a time zone (2026-11-28T12:00:00Z)`;
  if (!dateTimeOnly && DATE.test(value)) {
    if (!realDay(value)) throw invalid(field, shape);
    return new Date(Date.parse(`${value}T00:00:00Z`) + (endOfDay ? DAY_MS : 0));
  }
  const day = DATE_TIME.exec(value)?.[1];
  const at = new Date(value);
  if (!day || !realDay(day) || Number.isNaN(at.getTime())) throw invalid(field, shape);
  return at;
}

/** GET /credits/ledger's from/to as instants: `from` included, `to` excluded (a `to` date includes its day). */
export function ledgerRange(q: { from?: string; to?: string }): { from?: string; to?: string } {
  const from = q.from === undefined ? undefined : parseInstant('from', q.from, false);
  const to = q.to === undefined ? undefined : parseInstant('to', q.to, true);
  if (from && to) checkSpan(from.getTime(), to.getTime());
  return { ...(from ? { from: from.toISOString() } : {}), ...(to ? { to: to.toISOString() } : {}) };
}

/**
 * GET /credits/usage's days, both included: by default the USAGE_DEFAULT_DAYS days up to today (UTC); `to`
 * alone ends them there, `from` alone starts them there and ends them today.
 */
export function usageRange(
  q: { from?: string; to?: string },
  now = new Date(),
): { from: string; to: string } {
  const to = q.to === undefined ? now.toISOString().slice(0, 10) : parseDay('to', q.to);
  const from =
    q.from === undefined
      ? new Date(Date.parse(`${to}T00:00:00Z`) - (USAGE_DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)
      : parseDay('from', q.from);
  checkSpan(Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T00:00:00Z`) + DAY_MS);
  return { from, to };
}

/** The range [from, end) is not empty and spans at most USAGE_RANGE_MAX_DAYS days. */
function checkSpan(fromMs: number, endMs: number): void {
  if (endMs <= fromMs) throw invalid('from', 'from must be before to');
  if (endMs - fromMs > USAGE_RANGE_MAX_DAYS * DAY_MS)
    throw invalid('to', `from and to may be at most ${USAGE_RANGE_MAX_DAYS} days apart`);
}

function realDay(day: string): boolean {
  if (day < EARLIEST) return false;
  const at = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day;
}

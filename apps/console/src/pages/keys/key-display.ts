// API keys in words: which one is which (name, prefix, mode), what it may do, until when, and whether it is the
// key this page is signed in with.
import type { Schemas } from '@emailverify/client';
import { formatDateTime } from '../../format/numbers';
import type { Look } from '../account/Tone';

export type ApiKey = Schemas['ApiKey'];

/** How a key is told apart without showing it: its prefix, then an ellipsis. */
export function keyPrefixWords(prefix: string): string {
  return `${prefix}…`;
}

export function modeLook(mode: ApiKey['mode']): Look {
  return mode === 'sandbox'
    ? { label: 'Sandbox', glyph: '⚑', tone: 'warn' }
    : { label: 'Live', glyph: '●', tone: 'good' };
}

export function scopeWords(scope: ApiKey['scope']): string {
  return scope === 'verify' ? 'Verification only' : 'Full access';
}

export const SCOPE_HINTS: Record<ApiKey['scope'], string> = {
  full: 'everything, including webhooks and keys',
  verify: 'verification, files and the balance; it cannot manage keys or webhooks',
};

/** The key's state now: an active key past its expiry is expired, whatever the list said a moment ago. */
export function keyStateLook(key: Pick<ApiKey, 'status' | 'expires_at'>, now = Date.now()): Look {
  if (key.status === 'revoked') return { label: 'Revoked', glyph: '✕', tone: 'bad' };
  if (key.status === 'expired' || (key.expires_at !== null && Date.parse(key.expires_at) <= now)) {
    return { label: 'Expired', glyph: '⌛', tone: 'unsure' };
  }
  return { label: 'Active', glyph: '✓', tone: 'good' };
}

export function isUsable(key: Pick<ApiKey, 'status' | 'expires_at'>, now = Date.now()): boolean {
  return keyStateLook(key, now).label === 'Active';
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** "Never", "29 Nov 2027, 00:00", "29 Nov 2026, 00:00 (in 3 days)", "Expired 3 Nov 2026, 10:00". */
export function expiryWords(expiresAt: string | null, now = Date.now()): string {
  if (expiresAt === null) return 'Never';
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return expiresAt;
  if (at <= now) return `Expired ${formatDateTime(expiresAt)}`;
  const days = Math.ceil((at - now) / DAY_MS);
  return days <= 30
    ? `${formatDateTime(expiresAt)} (in ${days} day${days === 1 ? '' : 's'})`
    : formatDateTime(expiresAt);
}

/** The key this page is signed in with: the credits reply names its id. */
export function isCurrentKey(key: Pick<ApiKey, 'id'>, currentKeyId: string | undefined): boolean {
  return currentKeyId !== undefined && key.id === currentKeyId;
}

/** The expiry choices of the create form. */
export type ExpiryChoice = 'never' | '30d' | '90d' | '1y' | 'date';

export const EXPIRY_CHOICES: readonly { value: ExpiryChoice; label: string }[] = [
  { value: 'never', label: 'Never' },
  { value: '30d', label: 'In 30 days' },
  { value: '90d', label: 'In 90 days' },
  { value: '1y', label: 'In a year' },
  { value: 'date', label: 'On a date I choose' },
];

/** The API allows an expiry up to 10 years ahead. */
const MAX_YEARS = 10;

/**
 * The expires_at to send for a choice: undefined for never; for a date (YYYY-MM-DD of a date field), the end of
 * that day in the person's own time zone. Or the problem, in words.
 */
export function expiryOf(
  choice: ExpiryChoice,
  date: string,
  now = new Date(),
): { expiresAt: string | undefined } | { problem: string } {
  const later = (days: number) => ({ expiresAt: new Date(now.getTime() + days * DAY_MS).toISOString() });
  switch (choice) {
    case 'never':
      return { expiresAt: undefined };
    case '30d':
      return later(30);
    case '90d':
      return later(90);
    case '1y':
      return later(365);
    case 'date': {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
      if (!m) return { problem: 'Choose the day the key should stop working.' };
      // The last second of that day, local time: the key works through the whole chosen day.
      const end = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59);
      if (Number.isNaN(end.getTime()) || end.getTime() <= now.getTime()) {
        return { problem: 'Choose a day in the future.' };
      }
      const limit = new Date(now);
      limit.setFullYear(limit.getFullYear() + MAX_YEARS);
      if (end.getTime() > limit.getTime()) return { problem: `Choose a day within ${MAX_YEARS} years.` };
      return { expiresAt: end.toISOString() };
    }
  }
}

/** A date field's value (YYYY-MM-DD, local) for a moment: the form's earliest choosable day. */
export function dateFieldValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

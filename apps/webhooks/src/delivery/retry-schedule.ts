const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses WEBHOOK_RETRY_SCHEDULE: comma-separated delays before each attempt (`0,5s,5m,30m,2h`), each a
 * non-negative number with a unit of ms, s, m, h or d (a bare number is seconds). Returns milliseconds.
 */
export function parseRetrySchedule(value: string): number[] {
  const delays = value.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(part);
    if (!match) throw new Error(`"${part.trim()}" is not a delay such as 0, 500ms, 5s, 5m, 2h or 1d`);
    return Math.round(Number(match[1]) * UNITS[match[2] ?? 's']!);
  });
  if (delays.length === 0 || delays.length > 50) throw new Error('must list between 1 and 50 delays');
  return delays;
}

/** A delay with up to `fraction` (10%) added at random, so retries of many deliveries do not arrive together. */
export function withJitter(delayMs: number, random: () => number = Math.random, fraction = 0.1): number {
  return delayMs + Math.floor(delayMs * fraction * random());
}

/** The longest wait a receiver's Retry-After may ask for; longer values are held to it. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * Reads a Retry-After value (delay in seconds, or an HTTP date) as milliseconds from `now`; undefined when it
 * is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

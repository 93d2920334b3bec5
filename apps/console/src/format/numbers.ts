const integer = new Intl.NumberFormat('en');

export function formatCount(n: number): string {
  return integer.format(n);
}

/** 0.87 → "87%": a verification score as a percentage. */
export function formatScore(score: number): string {
  return `${Math.round(score * 100)}%`;
}

/** A date-time of the API, shown in the person's own time zone: "29 Nov 2026, 08:30". */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** A UTC day of the usage endpoint ("2026-11-29"), short: "29 Nov". */
export function formatDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

import type { Schemas } from '@emailverify/client';
import { formatDay } from '../../format/numbers';

export type Usage = Schemas['Usage'];

/** The usage chart's series: one bar a day, credits used (a day of refunds above charges shows as 0). */
export function creditSeries(usage: Usage): { labels: string[]; values: number[] } {
  return {
    labels: usage.days.map((day) => formatDay(day.date)),
    values: usage.days.map((day) => Math.max(0, day.credits_used)),
  };
}

/** Whether the account has done anything yet: the first visit shows "upload your first list" instead. */
export function isFirstVisit(usage: Usage, jobCount: number): boolean {
  const { verifications, sandbox_verifications: sandbox, credits_used: used } = usage.totals;
  return jobCount === 0 && verifications.total === 0 && sandbox.total === 0 && used === 0;
}

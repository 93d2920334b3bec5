// Pure helpers of the results downloads (download.ts does the fetching).
import type { VerificationStatus } from '@emailverify/contracts';

/** The file name of a Content-Disposition header: the UTF-8 `filename*` first, else `filename`. */
export function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      // Malformed: fall back to the plain name.
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/.exec(disposition);
  const name = plain ? (plain[2] ?? plain[1]!).trim() : '';
  return name || undefined;
}

/** The query of a results request: one `<status>=true` per ticked verdict (OR), and `partial`. */
export function resultsQuery(
  statuses: readonly VerificationStatus[],
  partial: boolean,
): Partial<Record<VerificationStatus | 'partial', boolean>> {
  const query: Partial<Record<VerificationStatus | 'partial', boolean>> = {};
  for (const status of statuses) query[status] = true;
  if (partial) query.partial = true;
  return query;
}

/** "leads.csv" -> "leads-results.csv": the name used when the reply names none. */
export function fallbackName(fileName: string, partial: boolean): string {
  const stem = fileName.replace(/\.[^.]+$/, '') || 'list';
  return `${stem}-${partial ? 'partial-' : ''}results.csv`;
}

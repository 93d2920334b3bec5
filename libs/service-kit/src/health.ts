/** A dependency that must answer for the process to be ready. */
export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, { status: 'ok' | 'failed'; error?: string }>;
}

/** Runs every check with a deadline; one failure makes the report unavailable. */
export async function runHealthChecks(checks: HealthCheck[], timeoutMs = 2_000): Promise<HealthReport> {
  const entries = await Promise.all(
    checks.map(async (c) => {
      try {
        await Promise.race([
          c.check(),
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref(),
          ),
        ]);
        return [c.name, { status: 'ok' as const }] as const;
      } catch (err) {
        return [
          c.name,
          { status: 'failed' as const, error: err instanceof Error ? err.message : String(err) },
        ] as const;
      }
    }),
  );
  const report: HealthReport = { status: 'ok', checks: Object.fromEntries(entries) };
  if (entries.some(([, r]) => r.status === 'failed')) report.status = 'unavailable';
  return report;
}

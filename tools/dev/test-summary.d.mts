/** The parts of Vitest's JSON report (`--reporter=json`) the summary reads. */
export interface VitestReport {
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults: Array<{ status: string; assertionResults: Array<{ status: string }> }>;
}

/** `N passed, N failed[, N skipped]`; the tests of a file that failed outside them count as failed. */
export function summarize(report: VitestReport): string;

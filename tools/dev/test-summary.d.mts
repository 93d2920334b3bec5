import type { JsonAssertionResult, JsonTestResult, JsonTestResults } from 'vitest/node';

/** The parts of Vitest's JSON report (`--reporter=json`) the summary reads. */
export type VitestReport = Pick<
  JsonTestResults,
  'success' | 'numTotalTests' | 'numPassedTests' | 'numFailedTests' | 'numPendingTests' | 'numTodoTests'
> & {
  testResults: Array<
    Pick<JsonTestResult, 'status'> & { assertionResults: Array<Pick<JsonAssertionResult, 'status'>> }
  >;
};

/** `N passed, N failed[, N skipped]`; the tests of a file that failed outside them count as failed. */
export function summarize(report: VitestReport): string;

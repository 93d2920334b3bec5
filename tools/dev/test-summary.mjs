// The closing line of `npm test` ("N passed, N failed"), from Vitest's JSON report.

/**
 * `N passed, N failed[, N skipped]` of a Vitest JSON report. A file that fails outside its tests (in a hook, or on
 * import) reports its tests as skipped: they did not pass, so they count as failed here, not as skipped.
 */
export function summarize(report) {
  if (report.numTotalTests === 0) return '0 passed, 0 failed (no test ran)';
  const notRun = report.testResults
    .filter((file) => file.status === 'failed')
    .flatMap((file) => file.assertionResults)
    .filter((test) => test.status === 'skipped' || test.status === 'pending').length;
  const failed = report.numFailedTests + notRun;
  const skipped = report.numPendingTests + report.numTodoTests - notRun;
  let summary = `${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
  // E.g. an error thrown after every test had passed, or a file that failed before it had any test.
  if (!report.success && failed === 0) summary += ' (the run failed outside the tests: see the errors above)';
  return summary;
}

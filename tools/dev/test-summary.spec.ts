import { describe, expect, it } from 'vitest';
import { summarize, type VitestReport } from './test-summary.mjs';

type File = VitestReport['testResults'][number];
type Status = File['assertionResults'][number]['status'];

const file = (status: File['status'], ...tests: Status[]): File => ({
  status,
  assertionResults: tests.map((test) => ({ status: test })),
});

/** A report of these files, with Vitest's own counts (a file failed in a hook reports its tests skipped). */
function report(files: File[], success = !files.some((f) => f.status === 'failed')): VitestReport {
  const tests = files.flatMap((f) => f.assertionResults);
  const count = (status: Status) => tests.filter((t) => t.status === status).length;
  return {
    success,
    numTotalTests: tests.length,
    numPassedTests: count('passed'),
    numFailedTests: count('failed'),
    numPendingTests: count('skipped'),
    numTodoTests: count('todo'),
    testResults: files,
  };
}

describe("npm test's closing line (test-summary.mjs)", () => {
  it('counts passed and failed tests, and skipped ones only when there are any', () => {
    expect(summarize(report([file('passed', 'passed', 'passed'), file('passed', 'passed')]))).toBe(
      '3 passed, 0 failed',
    );
    expect(
      summarize(report([file('passed', 'passed', 'skipped', 'todo'), file('failed', 'passed', 'failed')])),
    ).toBe('2 passed, 1 failed, 2 skipped');
  });

  it('counts the tests of a file that failed in a hook as failed, not skipped', () => {
    // As Vitest reported a three-node NATS cluster whose start failed in beforeAll.
    const hookFailed = report([
      file('passed', 'passed', 'passed', 'skipped'),
      file('failed', 'skipped', 'skipped'),
    ]);
    expect(hookFailed.numFailedTests).toBe(0);
    expect(summarize(hookFailed)).toBe('2 passed, 2 failed, 1 skipped');
  });

  it('says when the run failed with every test passed, and when no test ran', () => {
    expect(summarize(report([file('passed', 'passed')], false))).toBe(
      '1 passed, 0 failed (the run failed outside the tests: see the errors above)',
    );
    expect(summarize(report([]))).toBe('0 passed, 0 failed (no test ran)');
  });
});

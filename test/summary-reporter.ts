import type { Reporter, TestModule } from 'vitest/node';

/**
 * Closes a run with one plain, tool-readable line: `N passed, N failed` (skipped tests are in neither).
 * Vitest's own summary is coloured and split over several lines; CI systems that read a run's last
 * line (to tell a green run from one that executed nothing) read this one. A module that failed to load
 * counts as one failure, so a broken file can never read as a smaller green run.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      if (testModule.errors().length > 0) failed += 1;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    process.stdout.write(`${skipped} skipped\n${passed} passed, ${failed} failed\n`);
  }
}

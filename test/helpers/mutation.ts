/**
 * True inside `npm run mutate` (Stryker's test runner, docs/testing.md). A mutant is switched on
 * in the test's own process only: a test of tel in child processes cannot kill one, and a test
 * that bounds their timing fails under the instrumentation, so such a test is skipped there.
 */
export const underMutation = process.env.STRYKER_MUTATOR_WORKER !== undefined;

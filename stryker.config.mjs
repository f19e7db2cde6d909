// Mutation testing of tel's core: `npm run mutate` (opt-in, not in CI). How to read its report:
// docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [
    'src/restrictions/**/*.ts',
    'src/delivery/**/*.ts',
    'src/jobs/**/*.ts',
    'src/modules/limits/**/*.ts',
    'src/modules/auth/**/*.ts',
    'src/modules/webhooks/**/*.ts',
    'src/http/authorize.ts',
    '!**/*.test.ts',
  ],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: true, pool: 'forks' },
  coverageAnalysis: 'perTest',
  // A mutant reached only while modules load (a constant, a table) needs every test file imported
  // afresh to be switched on; the run keeps one worker and its imports (isolate: false in
  // vitest.mutate.config.ts), so such mutants are left out, as Stryker's ignoreStatic does.
  ignoreStatic: true,
  // Mutants that do not type-check can be dropped before they are tested (`npm run mutate --
  // --checkers typescript`), but each group the checker clears costs a check of most of the project
  // (every file importing the mutated one): on 2 shared cores the first full run spent two minutes
  // of CPU there without clearing one group. Without it, such a mutant is tested like any other.
  checkers: [],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  checkerNodeArgs: ['--import', './scripts/mutate/typescript-api.mjs'],
  concurrency: 2,
  timeoutMS: 10_000,
  dryRunTimeoutMinutes: 20,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, reportTests: false, reportMutants: true, reportScoreTable: true },
  ignorePatterns: ['dist', 'reports', '.tel-test-*'],
};

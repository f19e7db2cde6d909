import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The suite as `npm run mutate` runs it (stryker.config.mjs). A mutant is switched on inside the
 * test's own process, so tests that drive tel in a child process cannot kill one; tests that
 * measure time, memory or CPU would fail under the instrumentation; tests that count what a fresh
 * process loaded cannot share the kept worker. All are left out here (`underMutation` skips single
 * tests) and still run in `npm test`.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // one set of files, all in the kept worker (npm test's split into projects is not wanted here)
    projects: undefined,
    include: ['src/**/*.test.ts', 'test/contract.test.ts', 'test/storage-faults.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      'src/http/fuzz.test.ts',
      'src/http/memory.test.ts',
      'src/http/native-memory.test.ts',
      'src/http/tick-shape.test.ts',
      'src/http/wide-json.test.ts',
      'src/lab/scale.test.ts',
      'src/completion/**',
      'src/modules/webhooks/kill.test.ts',
      'src/jobs/recovery.test.ts',
      'src/cli/stdio.test.ts',
      'src/cli/startup.test.ts',
    ],
    isolate: false,
    // a timing bound missed under the instrumentation on a busy machine is tried again, so the
    // first, complete run passes and a mutant is killed by what it changed, not by the load
    retry: 2,
  },
});

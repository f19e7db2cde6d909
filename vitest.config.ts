import { defineConfig } from 'vitest/config';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  throw new Error(
    `tel's tests need Node 24 (node:sqlite); this is Node ${process.versions.node}. ` +
      'Run them with `npm test`, which uses the Node 24 that npm install brought.',
  );
}

const ALL = ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'];

/**
 * Files that judge what one process has done since it started (which JSON Schemas it compiled,
 * what its heap holds): each runs in a process of its own. The others share their worker's
 * process, file after file (`isolate: false`): a quiet run of the suite on 2 cores took 402 s
 * isolated and 296 s shared, for a third of the CPU.
 */
const OWN_PROCESS = ['src/cli/startup.test.ts', 'src/http/malloc-trim.test.ts', 'src/schema/validate.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // tests marked concurrent in one file (the doc pages' examples) run at most three at a time
    maxConcurrency: 3,
    projects: [
      { extends: true, test: { name: 'shared', include: ALL, exclude: OWN_PROCESS, isolate: false } },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});

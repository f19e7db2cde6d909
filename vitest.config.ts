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
 * what its heap holds), or time a receiver of their own: each runs in a process of its own. The
 * others share their worker's process, file after file (`isolate: false`): on 2 cores beside the
 * same other work, the suite took 402 s isolated and 296 s shared, for half the CPU.
 */
const OWN_PROCESS = [
  'src/cli/startup.test.ts',
  'src/http/native-memory.test.ts',
  // the memory tidy's state is the process's (requests seen, the collection asked for, those
  // counted), which other files' servers move in a shared process: three full runs of three each
  // failed one of its waits there
  'src/http/memory.test.ts',
  'src/schema/validate.test.ts',
  // its receiver runs in the test's process and must keep pace with a restarted server for 5 s: in a
  // process shared with earlier files it missed them in two full runs of two, alone it meets them
  'src/delivery/engine.test.ts',
];

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

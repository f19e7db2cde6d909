import { defineConfig } from 'vitest/config';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  throw new Error(
    `tel's tests need Node 24 (node:sqlite); this is Node ${process.versions.node}. ` +
      'Run them with `npm test`, which uses the Node 24 that npm install brought.',
  );
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

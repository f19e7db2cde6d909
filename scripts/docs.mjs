#!/usr/bin/env node
// Writes the reference pages made from the code: docs/cli.md (the commander program),
// docs/configuration.md (the configuration categories the modules declare) and
// docs/kazoo-coverage.md (the routes against Kazoo's operations). A test fails when the
// committed pages differ from what this writes.
//
//   npm run docs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle } from './bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'tel-docs-'));
try {
  // The generators are TypeScript over the sources: bundled as the CLI is, then run.
  const outfile = join(work, 'pages.mjs');
  await bundle({ force: true, entry: join(root, 'src/docs/pages.ts'), outfile });
  const { writeGeneratedPages } = await import(pathToFileURL(outfile).href);
  for (const file of await writeGeneratedPages(root)) console.log(`wrote ${file}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

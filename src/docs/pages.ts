import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliReference } from './cli-reference.js';
import { configReference } from './config-reference.js';

/** The reference pages made from the code, by their path in the repository. */
export const GENERATED_PAGES: { file: string; render: () => string }[] = [
  { file: 'docs/cli.md', render: () => cliReference() },
  { file: 'docs/configuration.md', render: () => configReference() },
];

/** Writes every generated page under `root`; answers their paths. */
export function writeGeneratedPages(root: string): string[] {
  return GENERATED_PAGES.map(({ file, render }) => {
    const path = join(root, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, render());
    return file;
  });
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildProgram, defineAll } from '../cli/program.js';
import { cliReference } from './cli-reference.js';
import { configReference } from './config-reference.js';
import { kazooCoverage } from './kazoo-coverage.js';

/** The reference pages made from the code, by their path in the repository. */
export const GENERATED_PAGES: { file: string; render: () => Promise<string> }[] = [
  { file: 'docs/cli.md', render: async () => cliReference(await defineAll(buildProgram({ out: () => {}, err: () => {}, isTTY: false }))) },
  { file: 'docs/configuration.md', render: async () => configReference() },
  { file: 'docs/kazoo-coverage.md', render: async () => kazooCoverage() },
];

/** Writes every generated page under `root`; answers their paths. */
export async function writeGeneratedPages(root: string): Promise<string[]> {
  const written: string[] = [];
  for (const { file, render } of GENERATED_PAGES) {
    const path = join(root, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, await render());
    written.push(file);
  }
  return written;
}

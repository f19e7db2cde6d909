#!/usr/bin/env node
// Writes the list of Kazoo's crossbar operations that docs/kazoo-coverage.md counts tel's routes
// against: one `METHOD /path module` a line, from the OpenAPI paths of a Kazoo checkout.
//
//   node scripts/kazoo-operations.mjs KAZOO_CHECKOUT
//
// KAZOO_CHECKOUT is a checkout of github:2600hz/kazoo. Each file of
// applications/crossbar/priv/oas3/paths names a crossbar module (`blacklists.yml`: cb_blacklists)
// and holds its operations; the list is written to src/docs/kazoo-operations.ts, then
// `npm run docs` makes the page. A developer's tool: CI has no Kazoo checkout.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

const checkout = process.argv[2];
const dir = checkout && join(checkout, 'applications/crossbar/priv/oas3/paths');
if (!dir || !existsSync(dir)) {
  console.error('usage: node scripts/kazoo-operations.mjs KAZOO_CHECKOUT');
  process.exit(2);
}

const lines = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.yml')).sort()) {
  const module = file.slice(0, -'.yml'.length);
  const paths = parse(readFileSync(join(dir, file), 'utf8'))?.paths ?? {};
  for (const [path, ops] of Object.entries(paths)) {
    for (const method of METHODS) if (ops?.[method]) lines.push(`${method.toUpperCase()} ${path} ${module}`);
  }
}

const out = join(root, 'src/docs/kazoo-operations.ts');
writeFileSync(
  out,
  `// Kazoo's crossbar operations, \`METHOD /path module\`, as its OpenAPI paths list them (one file a
// module). Written by scripts/kazoo-operations.mjs from a Kazoo checkout: do not edit by hand.
export const KAZOO_OPERATIONS: readonly string[] = [
${lines.map((l) => `  ${JSON.stringify(l)},`).join('\n')}
];
`,
);
console.log(`${lines.length} operations written to ${out.slice(root.length + 1)}`);

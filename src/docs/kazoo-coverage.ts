import type { RouteDef } from '../http/router.js';
import { MODULES } from '../modules/index.js';
import { KAZOO_NOTES } from './kazoo-notes.js';
import { KAZOO_OPERATIONS } from './kazoo-operations.js';
import { code, table } from './markdown.js';

/** One of Kazoo's operations: its method, path (`/accounts/{ACCOUNT_ID}/…`) and crossbar module. */
export interface KazooOperation {
  method: string;
  path: string;
  module: string;
}

/** How much of a Kazoo module tel serves. */
export interface ModuleCoverage {
  module: string;
  served: KazooOperation[];
  missing: KazooOperation[];
}

/** Kazoo's operations, from the list kept in the repository (scripts/kazoo-operations.mjs). */
export function kazooOperations(lines: readonly string[] = KAZOO_OPERATIONS): KazooOperation[] {
  return lines.map((line) => {
    const [method, path, module] = line.split(' ');
    return { method, path, module };
  });
}

/** A path as both sides are compared: parameters (`{ACCOUNT_ID}`, `:account_id`) as `{}`, literals in lower case. */
function shape(path: string): string {
  return path
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith(':') || s.startsWith('{') ? '{}' : s.toLowerCase()))
    .join('/');
}

/** Path parameters of Kazoo's that name one of a few collections (its OpenAPI parameters' enums): each is a path of its own. */
const COLLECTION_PARAMETERS: Readonly<Record<string, readonly string[]>> = { '{ENDPOINT_TYPE}': ['users', 'devices'] };

/** The paths an operation's path stands for: itself, or one a value of each collection parameter it has. */
function concretePaths(path: string): string[] {
  let paths = [''];
  for (const segment of path.split('/').filter(Boolean)) {
    const values = COLLECTION_PARAMETERS[segment] ?? [segment];
    paths = paths.flatMap((p) => values.map((v) => `${p}/${v}`));
  }
  return paths;
}

/**
 * Kazoo's operations module by module (in its order), each served when a route of tel has its
 * method and path (for a path naming a collection by a parameter, `{ENDPOINT_TYPE}`, a route for
 * each of them).
 */
export function coverage(routes: readonly Pick<RouteDef, 'method' | 'path'>[], operations: KazooOperation[] = kazooOperations()): ModuleCoverage[] {
  const served = new Set(routes.map((r) => `${r.method} ${shape(r.path)}`));
  const byModule = new Map<string, ModuleCoverage>();
  for (const op of operations) {
    let m = byModule.get(op.module);
    if (!m) byModule.set(op.module, (m = { module: op.module, served: [], missing: [] }));
    (concretePaths(op.path).every((path) => served.has(`${op.method} ${shape(path)}`)) ? m.served : m.missing).push(op);
  }
  return [...byModule.values()].sort((a, b) => a.module.localeCompare(b.module));
}

/** Every route tel serves. */
function telRoutes(): RouteDef[] {
  return MODULES.flatMap((m) => m.routes ?? []);
}

const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)} %`;

/** docs/kazoo-coverage.md: Kazoo's operations tel serves, module by module, and why the rest are not. */
export function kazooCoverage(modules: ModuleCoverage[] = coverage(telRoutes()), notes: Readonly<Record<string, string>> = KAZOO_NOTES): string {
  const total = modules.reduce((n, m) => n + m.served.length + m.missing.length, 0);
  const served = modules.reduce((n, m) => n + m.served.length, 0);
  const rows = modules.map((m) => [code(m.module), `${m.served.length}/${m.served.length + m.missing.length}`, notes[m.module] ?? '']);
  const left = modules.filter((m) => m.served.length === 0);
  const partly = modules.filter((m) => m.served.length > 0 && m.missing.length > 0);
  return (
    [
      "# Kazoo's API in tel",
      '<!-- Made by `npm run docs` from the routes tel serves and the list of Kazoo\'s operations in src/docs/kazoo-operations.ts (`node scripts/kazoo-operations.mjs KAZOO_CHECKOUT` writes it); the notes are in src/docs/kazoo-notes.ts. -->',
      "After reading this page you know which of Kazoo's crossbar operations tel serves, module by module, and why the others are not served, so that you can tell whether your Kazoo client can be tested against tel.",
      `Kazoo's OpenAPI paths (\`applications/crossbar/priv/oas3/paths\`, one file a crossbar module) hold ${total} operations in ${modules.length} modules. An operation counts as served when tel has a route of its method and path (one on \`{ENDPOINT_TYPE}\`, when it has users' and devices'); every route tel serves is in \`GET /v2/openapi.json\`.`,
      `**tel serves ${served} of Kazoo's ${total} operations (${percent(served, total)}).** ${modules.length - left.length - partly.length} modules are served whole, ${partly.length} in part, ${left.length} not at all.`,
      table(['Module', 'Served', 'What is not served, and why'], rows),
      '## Modules left out',
      left.map((m) => `- ${code(m.module)} (${m.missing.length}): ${notes[m.module] ?? ''}`).join('\n'),
      '## Operations not served in modules served in part',
      partly.map((m) => `- ${code(m.module)}: ${m.missing.map((op) => code(`${op.method} ${op.path}`)).join(', ')}`).join('\n'),
    ].join('\n\n') + '\n'
  );
}

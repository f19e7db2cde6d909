import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTel, type TelProcess } from './tel-process.js';
import { tempDir } from './server.js';
import { installed, telOnPath } from './tel-on-path.js';

/**
 * Runnable doc examples: fenced blocks whose info string is `sh runnable`. A page's runnable blocks
 * run in order, in one bash (variables set by one block are there for the next), with `set -euo
 * pipefail`, against a throw-away `tel serve --ephemeral`:
 * - `tel` (and `npx tel`) on PATH run this checkout; TEL_DB is the server's database, so CLI
 *   examples work on the file the server serves;
 * - `http://127.0.0.1:8000` in a block stands for the server's URL; every other port a block or
 *   `examples/` names (`127.0.0.1:9000`, `localhost:…`, `--port 9000`) stands for a free port chosen
 *   for the run, the same one wherever it appears: the suite never sends to, nor listens on, a
 *   port of the docs, where a user may run `tel sink` or their own consumer;
 * - the master account is the README's: account `Lab`, user `admin`, password `s3cret`;
 * - a page of docs/ runs after README's blocks marked `setup` (` ```sh runnable setup `: its first
 *   steps' login), so its examples use the `$TOKEN`, `$ACCOUNT` and `$CUSTOMER` those set;
 * - curl fails on an HTTP error answer (`--fail-with-body --show-error`): an example whose request is refused lies;
 * - the working directory is a temporary one, with a copy of the repository's `examples/` in it
 *   (its ports rewritten as the blocks' are).
 */

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A runnable block: where it is and what it runs. */
export interface DocExample {
  file: string;
  /** line of the opening fence, 1-based */
  line: number;
  code: string;
  /** marked `setup`: the pages of docs/ run after it (see the top of this file) */
  setup?: true;
}

/** Tools the examples may use that a machine may lack; a page that uses a missing one is skipped, saying which. */
export const OPTIONAL_TOOLS = ['curl', 'jq'];

/** The lab the examples' server starts from: the names of README's first steps. */
const FIXTURE = `version: 1
account:
  name: Lab
  users:
    - username: admin
      password: s3cret
      first_name: Lab
      last_name: Admin
      priv_level: admin
`;

/** The server's place holder in the docs. */
const DOC_URL = 'http://127.0.0.1:8000';

/** A port written in the docs: after a loopback address and a colon, or after `--port`. */
const PORT_LITERAL = /(?<=(?:\b(?:127\.0\.0\.1|localhost|0\.0\.0\.0)|\[::1\]):|--port[= ])[1-9]\d{0,4}\b/g;

/** The ports a text names (`http://127.0.0.1:8000`, the server's place holder, included). */
export function literalPorts(text: string): number[] {
  return [...new Set([...text.matchAll(PORT_LITERAL)].map((m) => Number(m[0])))];
}

/** The files of the repository's `examples/`, by name, as the examples read them. */
function exampleFiles(): Map<string, string> {
  const dir = join(ROOT, 'examples');
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

/** Every port the runnable examples of `pages`, and the files of `examples/`, name. */
export function docPorts(pages: string[]): number[] {
  const texts = [...pages.flatMap((page) => runnableExamples(readFileSync(join(ROOT, page), 'utf8'), page).map((e) => e.code)), ...exampleFiles().values()];
  return [...new Set(texts.flatMap(literalPorts))];
}

/** A port nothing listens on now, chosen by the system. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * `texts` as a run uses them: the server's place holder replaced by `url`, every other port they
 * name by a free one (one for each port, whatever text names it).
 */
export async function withRunPorts(texts: string[], url: string): Promise<string[]> {
  const served = texts.map((t) => t.replaceAll(DOC_URL, url));
  const named = literalPorts(texts.map((t) => t.replaceAll(DOC_URL, '')).join('\n'));
  const ports = new Map<string, string>();
  for (const port of named) ports.set(String(port), String(await freePort()));
  return served.map((t) => t.replace(PORT_LITERAL, (port) => ports.get(port) ?? port));
}

/** The runnable blocks of a Markdown text. */
export function runnableExamples(markdown: string, file: string): DocExample[] {
  const out: DocExample[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, fence, info] = open;
    // the fence closes with a line of at least as many of the same character, and nothing else
    const closing = new RegExp(`^\\s{0,3}${fence[0]}{${fence.length},}\\s*$`);
    const end = lines.findIndex((l, j) => j > i && closing.test(l));
    const close = end === -1 ? lines.length : end;
    const words = info.trim().split(/\s+/);
    if (['sh', 'bash', 'shell'].includes(words[0]) && words.includes('runnable')) {
      const example: DocExample = { file, line: i + 1, code: lines.slice(i + 1, close).join('\n') };
      if (words.includes('setup')) example.setup = true;
      out.push(example);
    }
    i = close;
  }
  return out;
}

/** The optional tools the examples call that this machine lacks. */
export function missingTools(examples: DocExample[], tools: string[] = OPTIONAL_TOOLS): string[] {
  const used = tools.filter((tool) => examples.some((e) => new RegExp(`(^|[\\s|(;&])${tool}\\b`, 'm').test(e.code)));
  return used.filter((tool) => !installed(tool));
}

/** How a page's examples went: `failed` names the block, the command's exit code and what it printed. */
export interface PageRun {
  ran: number;
  /** the accounts the run's server held at its end (what its deliveries carry as `account_id`) */
  accountIds: string[];
  failed?: { example: DocExample; code: number | null; output: string; server: string };
}

/** Makes `bin` hold `tel` (this checkout) and an `npx` that runs only it; answers a PATH with `bin` first. */
function telAndNpxOnPath(bin: string): string {
  mkdirSync(bin);
  writeFileSync(join(bin, 'npx'), '#!/bin/sh\n[ "$1" = tel ] || { echo "doc examples run only \\`npx tel …\\`, not npx $1" >&2; exit 127; }\nshift\nexec tel "$@"\n');
  chmodSync(join(bin, 'npx'), 0o755);
  return telOnPath(bin);
}

/** A bash `curl` that fails on an HTTP error answer and sends the docs' server URL to `$TEL_URL`. */
const CURL_TO_THE_SERVER =
  'curl() { local a=() x; for x in "$@"; do a+=("${x//http:\\/\\/127.0.0.1:8000/$TEL_URL}"); done; command curl --fail-with-body --show-error "${a[@]}"; }';

/** How README's first screen went for a newcomer: what it printed, and `$TOKEN` as it left it. */
export interface FirstScreenRun {
  code: number | null;
  output: string;
  token: string;
}

/**
 * README's first screen as a newcomer runs it, in an empty directory standing for the clone's
 * root: its first block line by line, then its setup blocks (the login that sets `$TOKEN`).
 * `tel` and `npx tel` run this checkout; `npm install` is this checkout's node_modules (what it
 * prints is the install test's); `npm start` runs what package.json's start script runs, `tel
 * serve`, in the background on a free port, where the blocks' `http://127.0.0.1:8000` goes;
 * `npm test` is not run from inside the suite.
 */
export async function runFirstScreen(first: string, setup: DocExample[], timeoutMs = 60_000): Promise<FirstScreenRun> {
  const { dir, cleanup } = tempDir('tel-first-screen-');
  try {
    const work = join(dir, 'clone');
    mkdirSync(work);
    const PATH = telAndNpxOnPath(join(dir, 'bin'));
    const script = [
      'set -euo pipefail',
      'exec 2>&1',
      'TEL_URL=',
      'npm() {',
      '  case "$1" in',
      '    install) echo "(npm install: this checkout\'s node_modules)" ;;',
      `    start) tel serve --port 0 > '${join(dir, 'serve.log')}' 2>&1 &`,
      `      for _ in $(seq 300); do grep -q 'listening on' '${join(dir, 'serve.log')}' && break; sleep 0.1; done`,
      `      cat '${join(dir, 'serve.log')}'`,
      `      TEL_URL=$(grep -o 'listening on http://[^ ]*' '${join(dir, 'serve.log')}' | cut -d' ' -f3) ;;`,
      '    test) echo "(npm test: not run from inside the suite)" ;;',
      '    *) echo "npm $1 is not a step of the first screen" >&2; return 127 ;;',
      '  esac',
      '}',
      CURL_TO_THE_SERVER,
      `trap 'echo "(the command that failed: $BASH_COMMAND)"' ERR`,
      first,
      ...setup.map((e) => e.code),
      'printf "\\n@@token=%s\\n" "$TOKEN"',
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, PATH };
    delete env.TEL_DB;
    const r = await bash(script, work, env, timeoutMs);
    return { ...r, token: /^@@token=(.*)$/m.exec(r.output)?.[1] ?? '' };
  } finally {
    cleanup();
  }
}

/** Runs a page's runnable examples in order against a throw-away server (see the top of this file). */
export async function runExamples(examples: DocExample[], timeoutMs = 60_000): Promise<PageRun> {
  const { dir, cleanup } = tempDir('tel-doc-examples-');
  const work = join(dir, 'work');
  mkdirSync(work);
  mkdirSync(join(work, 'examples'));
  const PATH = telAndNpxOnPath(join(dir, 'bin'));
  writeFileSync(join(dir, 'fixture.yaml'), FIXTURE);

  const server = startTel(['serve', '--ephemeral', '--fixture', join(dir, 'fixture.yaml'), '--port', '0', '--json']);
  try {
    const master = await server.until(() => server.json()[0], 'the ephemeral server to print its credentials', 30_000);
    const url = server.stdout.split('\n')[0].trim();
    const files = exampleFiles();
    const texts = await withRunPorts([...examples.map((e) => e.code), ...files.values()], url);
    [...files.keys()].forEach((name, i) => writeFileSync(join(work, 'examples', name), texts[examples.length + i]));
    const script = [
      'set -euo pipefail',
      'exec 2>&1',
      'curl() { command curl --fail-with-body --show-error "$@"; }',
      `trap 'echo "(the command that failed: $BASH_COMMAND)"' ERR`,
      ...examples.flatMap((_e, i) => {
        const file = join(dir, `example-${i}.sh`);
        writeFileSync(file, `${texts[i]}\n`);
        return [`echo '@@example ${i}'`, `source '${file}'`];
      }),
      "echo '@@done'",
    ].join('\n');
    const r = await bash(script, work, { ...process.env, PATH, TEL_DB: String(master.db) }, timeoutMs);
    const accountIds = accountsOf(String(master.db));
    const parts = r.output.split(/^@@example (\d+)\n/m);
    const reached = parts.length > 1 ? Number(parts[parts.length - 2]) : 0;
    if (r.code === 0 && r.output.includes('@@done')) return { ran: examples.length, accountIds };
    const output = (parts[parts.length - 1] ?? r.output).trim();
    return { ran: reached, accountIds, failed: { example: examples[reached], code: r.code, output, server: serverState(server) } };
  } finally {
    await server.stop();
    cleanup();
  }
}

/** How the page's server stood when an example failed: running or how it ended, and what it logged. */
function serverState(server: TelProcess): string {
  const { exitCode, signalCode } = server.child;
  const state = exitCode === null && signalCode === null ? 'was still running' : `had exited (code ${exitCode}, signal ${signalCode})`;
  return `The page's server ${state}; it logged:\n${server.stderr.slice(-4000) || '(nothing)'}`;
}

/** The ids of a database's accounts, read without changing it. */
function accountsOf(file: string): string[] {
  // the server may be checkpointing its log at that moment: wait for it as tel's own reads do
  const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    return (db.prepare('SELECT id FROM accounts').all() as { id: string }[]).map((a) => a.id);
  } finally {
    db.close();
  }
}

/** Runs a bash script in its own process group (examples may start servers with &); kills the group after. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      output += `\n(the examples did not finish within ${timeoutMs} ms)`;
      killGroup();
    }, timeoutMs);
    let code: number | null = null;
    child.on('error', reject);
    // what an example left running in the background goes with bash (it may hold the pipes open)
    child.on('exit', (c) => {
      code = c;
      killGroup();
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A failed run as the test reports it: the page and line of the block, the block, what it printed. */
export function describeFailure(run: PageRun): string {
  if (!run.failed) return '';
  const { example, code, output, server } = run.failed;
  return `${example.file}:${example.line}: this example ended with exit code ${code}\n\n${example.code}\n\nIt printed:\n${output.slice(-4000)}\n\n${server}`;
}

import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeFailure,
  docPorts,
  literalPorts,
  missingTools,
  ROOT,
  runExamples,
  runnableExamples,
  withRunPorts,
  type DocExample,
} from './helpers/doc-examples.js';

/** The pages whose runnable examples must run as written: README and every page of docs/. */
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** README's first steps, which the pages of docs/ build on (`$TOKEN`, `$ACCOUNT`, `$CUSTOMER`). */
const SETUP = runnableExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'README.md').filter((e) => e.setup);

/** What a listener on one of the docs' ports received while the examples ran. */
interface PortWatch {
  port?: number;
  /** why no port of the docs could be listened on */
  unavailable?: string;
  /** each request received: its method, path and body */
  received: string[];
  server?: Server;
}

/** Listens on 9000, the sink's port in the docs, or if it is taken on another port the docs name. */
async function watchADocPort(): Promise<PortWatch> {
  const watch: PortWatch = { received: [] };
  const ports = [9000, ...docPorts(PAGES).filter((p) => p !== 9000)];
  for (const port of ports) {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        watch.received.push(`${req.method} ${req.url} ${body}`);
        res.end();
      });
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) return Object.assign(watch, { port, server });
  }
  return { ...watch, unavailable: `every port the docs name is taken on this machine (${ports.join(', ')})` };
}

describe('doc examples run as written', () => {
  let watch: PortWatch = { received: [] };
  const ran = new Set<string>();
  /** the accounts of the examples' servers: what their deliveries carry */
  const accounts = new Set<string>();
  beforeAll(async () => {
    watch = await watchADocPort();
  });
  afterAll(() => new Promise<void>((resolve) => (watch.server ? watch.server.close(() => resolve()) : resolve())));

  for (const page of PAGES) {
    const own = runnableExamples(readFileSync(join(ROOT, page), 'utf8'), page);
    if (own.length === 0) continue;
    const examples = page === 'README.md' ? own : [...SETUP, ...own];
    // pages run side by side (each its own server, file and ports): most of a page's time is its
    // commands starting, so the file takes a third of the time it took a page after another
    it.concurrent(`${page}: its ${own.length} runnable examples, in order, against a throw-away server`, async (ctx) => {
      const missing = missingTools(examples);
      if (missing.length > 0) {
        ctx.skip(`${page}'s examples call ${missing.join(' and ')}, not installed here (apt-get install ${missing.join(' ')}): they were not run`);
      }
      const run = await runExamples(examples);
      for (const id of run.accountIds) accounts.add(id);
      if (run.failed) ctx.expect.fail(describeFailure(run));
      ctx.expect(run.ran).toBe(examples.length);
      ran.add(page);
    }, 120_000);
  }

  it("sent nothing to a port the docs name, where a user may run tel sink: the examples' ports were free ones", (ctx) => {
    if (watch.unavailable) ctx.skip(watch.unavailable);
    // the proof means something only if a page that sends to that port ran
    const senders = PAGES.filter((page) => ran.has(page) && runnableExamples(readFileSync(join(ROOT, page), 'utf8'), page).some((e) => literalPorts(e.code).includes(watch.port!)));
    if (senders.length === 0) ctx.skip(`no page whose examples name port ${watch.port} ran here`);
    // what another checkout's older suite on this machine sends there is not this suite's
    const ours = watch.received.filter((r) => [...accounts].some((id) => r.includes(id)));
    expect(accounts.size).toBeGreaterThan(0);
    expect(ours).toEqual([]);
  });

  it('README marks examples runnable, its first steps as the setup of the other pages, and the generated configuration page marks its one', () => {
    expect(runnableExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(SETUP.length).toBeGreaterThanOrEqual(1);
    expect(SETUP.map((e) => e.code).join('\n')).toMatch(/\bTOKEN=[\s\S]*\bACCOUNT=[\s\S]*\bCUSTOMER=/);
    expect(runnableExamples(readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8'), 'docs/configuration.md')).toHaveLength(1);
  });
});

describe('the example runner', () => {
  it("gives each port the docs name a free one for the run, the same wherever it appears, and the server's place holder the server's URL", async () => {
    const [a, b, c] = await withRunPorts(
      ['curl http://127.0.0.1:8000/v2/about; tel sink --port 9000 &', 'uri: http://127.0.0.1:9000/calls', 'http://localhost:8000/x --port 0'],
      'http://127.0.0.1:45678',
    );
    const sink = literalPorts(a)[1];
    expect(a).toBe(`curl http://127.0.0.1:45678/v2/about; tel sink --port ${sink} &`);
    expect([9000, 8000, 45678]).not.toContain(sink);
    expect(b).toBe(`uri: http://127.0.0.1:${sink}/calls`);
    expect(literalPorts(c)).toHaveLength(1);
    expect(literalPorts(c)[0]).not.toBe(8000);
    expect(c).toMatch(/ --port 0$/);
  });

  it('takes only fenced shell blocks marked runnable, whole, with their lines', () => {
    const page = [
      '# Page', // 1
      '```sh', // 2
      'echo not marked',
      '```',
      '```sh runnable', // 5
      'echo one',
      '````md',
      '```',
      '````',
      '```',
      '````md', // 11
      '```sh runnable',
      'echo inside another block',
      '```',
      '````',
      '~~~bash runnable', // 16
      'echo two',
      '~~~',
      '```json runnable',
      '{}',
      '```',
      '```sh runnable setup', // 22
      'echo first',
      '```',
    ].join('\n');
    expect(runnableExamples(page, 'page.md')).toEqual([
      { file: 'page.md', line: 5, code: 'echo one\n````md' },
      { file: 'page.md', line: 16, code: 'echo two' },
      { file: 'page.md', line: 22, code: 'echo first', setup: true },
    ]);
  });

  it('names the tools a page calls that the machine lacks, and only those', () => {
    const page = (code: string): DocExample[] => [{ file: 'p.md', line: 1, code }];
    expect(missingTools(page('X=$(no-such-tool-1 -s x | sh)'), ['no-such-tool-1', 'no-such-tool-2', 'sh'])).toEqual(['no-such-tool-1']);
    expect(missingTools(page('echo no-such-tool-1x'), ['no-such-tool-1'])).toEqual([]);
  });

  it('runs blocks in one shell against the server, and a failing block fails the page, named by its line, with what it printed', async () => {
    const started = Date.now();
    const run = await runExamples([
      { file: 'page.md', line: 3, code: 'sleep 30 &   # left running: the runner ends it\nKEY=$(tel accounts list --json | grep -c Lab)' },
      { file: 'page.md', line: 9, code: 'curl -s http://127.0.0.1:8000/v2/webhooks > /dev/null\nnpx tel --version\necho "key=$KEY"' },
      { file: 'page.md', line: 14, code: 'curl -s http://127.0.0.1:8000/v2/accounts/0123456789abcdef0123456789abcdef\necho never here' },
      { file: 'page.md', line: 20, code: 'echo nor here' },
    ]);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(run.ran).toBe(2);
    expect(run.failed?.example.line).toBe(14);
    expect(run.failed?.code).toBe(22);
    expect(run.failed?.output).toMatch(/"status":\s*"error"/);
    expect(run.failed?.output).not.toContain('never here');
    expect(describeFailure(run)).toMatch(/^page\.md:14: this example ended with exit code 22\n/);
    expect(describeFailure(run)).toMatch(/\n\nThe page's server was still running; it logged:\n/);

    const unset = await runExamples([{ file: 'other.md', line: 1, code: 'echo "$NOT_SET_ANYWHERE"' }]);
    expect(unset.failed?.output).toMatch(/NOT_SET_ANYWHERE: unbound variable/);
  }, 60_000);
});

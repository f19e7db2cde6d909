import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TEL_BIN } from './helpers/cli.js';
import { httpRequest, tempDir } from './helpers/server.js';
import { startTelSink, type TelProcess } from './helpers/tel-process.js';
import { newSecret } from '../src/delivery/sign.js';

// The real `tel watch` in a real pseudo-terminal (tmux), against a database that a real
// `tel serve` child process is filling with deliveries to a loopback sink.
const tmuxVersion = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
const hasTmux = tmuxVersion.status === 0;
const SKIP_REASON = 'tmux is not installed (apt-get install -y tmux): the pseudo-terminal test of tel watch cannot run';
if (!hasTmux) console.warn(`SKIPPED watch-pty: ${SKIP_REASON}`);

// A tmux server of our own, its socket in the test's temporary directory (removed with it).
let socket = '';
const session = 'watch';
const tmux = (...args: string[]) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session);

async function until<T>(fn: () => T | undefined | false, what: string, timeoutMs = 8000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Running {
  child: ChildProcess;
  out: string;
}

function start(args: string[]): Running {
  const r: Running = { child: spawn(process.execPath, [TEL_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }), out: '' };
  r.child.stdout!.on('data', (d) => (r.out += d));
  r.child.stderr!.on('data', (d) => (r.out += d));
  return r;
}

function exited(r: Running): Promise<number | null> {
  return r.child.exitCode !== null ? Promise.resolve(r.child.exitCode) : new Promise((res) => r.child.once('exit', (code) => res(code)));
}

describe('tel watch against a running tel serve', () => {
  let tmp: ReturnType<typeof tempDir> | undefined;
  let db = '';
  let server: Running;
  let sink: Server;
  let base = '';
  let token = '';
  let accountId = '';
  let telSink: (TelProcess & { url: string }) | undefined;

  // Spawned in beforeAll (not in the describe body), so a skipped run starts nothing.
  beforeAll(async () => {
    tmp = tempDir('tel-watch-pty-');
    db = join(tmp.dir, 'lab.db');
    socket = join(tmp.dir, 'tmux.sock');
    sink = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : 500).end());
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    server = start(['serve', '--db', db, '--port', '0']);
    base = await until(() => /tel listening on (http:\/\/\S+)/.exec(server.out)?.[1], `tel serve to listen\n${server.out}`);
    const apiKey = /api_key\s+([0-9a-f]{64})/.exec(server.out)![1];
    const auth = await httpRequest(base, 'PUT', '/v2/api_auth', { data: { api_key: apiKey } });
    token = auth.body.auth_token;
    accountId = auth.body.data.account_id;
    for (const [name, path] of [['Orders', '/ok'], ['Ledger', '/fail']]) {
      const r = await httpRequest(base, 'PUT', `/v2/accounts/${accountId}/webhooks`, {
        token,
        data: { name, uri: `${sinkUrl}${path}`, hook: 'channel_answer', http_verb: 'post', format: 'json', retries: 0 },
      });
      expect(r.status).toBe(201);
    }
  });

  afterAll(async () => {
    if (hasTmux && socket) spawnSync('tmux', ['-S', socket, 'kill-server']);
    await telSink?.stop();
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await exited(server);
    }
    await new Promise<void>((r) => (sink ? sink.close(() => r()) : r()));
    tmp?.cleanup();
  });

  const call = async () => {
    const r = await httpRequest(base, 'PUT', `/v2/accounts/${accountId}/simulations`, { token, data: { kind: 'call' } });
    expect(r.status).toBe(201);
  };

  test.skipIf(!hasTmux)(`in a pseudo-terminal, new attempts appear on the screen; q quits${hasTmux ? '' : ` (skipped: ${SKIP_REASON})`}`, async () => {
    tmux('new-session', '-d', '-s', session, '-x', '140', '-y', '30', `${process.execPath} ${TEL_BIN} watch --db ${db}`);
    // The first draw waits for Node, the bundle and Ink to start: slow on a busy 2-core box.
    await until(() => screen().includes('No webhook attempts yet'), `the empty screen\n${screen()}`, 25_000);
    expect(screen()).toMatch(/attempts 0\s+ok 0\s+failed 0/);

    await call();
    const first = await until(() => /attempts 2\s+ok 1\s+failed 1/.test(screen()) && screen(), `the first call's attempts\n${screen()}`, 6000);
    expect(first).toMatch(/Orders\s+channel_answer\s+success\s+200/);
    expect(first).toMatch(/Ledger\s+channel_answer\s+failure\s+500/);

    await call();
    await call();
    const later = await until(() => /attempts 6\s+ok 3\s+failed 3/.test(screen()) && screen(), `later attempts\n${screen()}`, 6000);
    expect(later.split('\n').filter((l) => /Orders|Ledger/.test(l))).toHaveLength(6);

    tmux('send-keys', '-t', session, 'f');
    await until(() => screen().includes('failures only: 3 of 6 shown'), `failures only\n${screen()}`);
    tmux('send-keys', '-t', session, 'q');
    await until(() => spawnSync('tmux', ['-S', socket, 'has-session', '-t', session]).status !== 0, 'tel watch to quit on q');
  }, 60_000);

  test.skipIf(!hasTmux)(`the Received pane shows what tel sink got, with its verdict; Enter puts tel's attempt beside it${hasTmux ? '' : ` (skipped: ${SKIP_REASON})`}`, async () => {
    // a sub-account of its own, so the other tests' counts stay as they are
    const sub = await httpRequest(base, 'PUT', `/v2/accounts/${accountId}`, { token, data: { name: 'Consumers' } });
    const subId = sub.body.data.id;
    telSink = await startTelSink(db, '--rule', '/refuse=503');
    for (const [name, path, secret] of [['Signed', '/accept', newSecret()], ['Unsigned', '/refuse', undefined]]) {
      const r = await httpRequest(base, 'PUT', `/v2/accounts/${subId}/webhooks`, {
        token,
        data: { name, uri: `${telSink.url}${path}`, hook: 'channel_create', format: 'json', retries: 0, ...(secret ? { secret } : {}) },
      });
      expect(r.status).toBe(201);
    }
    expect((await httpRequest(base, 'PUT', `/v2/accounts/${subId}/simulations`, { token, data: { kind: 'call', answer: false } })).status).toBe(201);
    await telSink.until(() => telSink!.json().filter((l) => l.id).length === 2, 'the sink to record both deliveries');

    const name = 'received';
    tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '40', `${process.execPath} ${TEL_BIN} watch --db ${db} --account ${subId}`);
    const pane = () => tmux('capture-pane', '-p', '-t', name);
    await until(() => pane().includes('3 Received'), `the watch screen\n${pane()}`, 25_000);
    tmux('send-keys', '-t', name, '3');
    // the header's counts and the hook names show on the Attempts pane too: the paths only on the Received one
    const list = await until(() => /\/accept/.test(pane()) && /\/refuse/.test(pane()) && pane(), `the Received pane\n${pane()}`);
    expect(list).toMatch(/Consumers\s+Signed\s+POST\s+200\s+\d+ms\s+valid\s+\/accept/);
    expect(list).toMatch(/Consumers\s+Unsigned\s+POST\s+503\s+\d+ms\s+unsigned\s+\/refuse/);
    // the newest first; move to the signed one and open it
    const rows = list.split('\n').filter((l) => /\/accept|\/refuse/.test(l));
    if (!rows[0].includes('/accept')) tmux('send-keys', '-t', name, 'j');
    tmux('send-keys', '-t', name, 'Enter');
    const detail = await until(() => pane().includes('Sent by tel (attempt') && pane(), `the side-by-side detail\n${pane()}`);
    expect(detail).toMatch(/Verdict\s+valid: signed with the hook's secret/);
    expect(detail).toMatch(/Sent by tel \(attempt \d+\)\s+│ Received by the sink \(request \d+\)/);
    // the same signature sent and received, side by side
    expect(detail).toMatch(/webhook-signature: v1,(\S+).*│\s+webhook-signature: v1,\1/);
    tmux('send-keys', '-t', name, 'q');
    await until(() => spawnSync('tmux', ['-S', socket, 'has-session', '-t', name]).status !== 0, 'tel watch to quit on q');
  }, 60_000);

  const recorded = async () =>
    (await httpRequest(base, 'GET', `/v2/accounts/${accountId}/webhooks/attempts`, { token })).body.data.length as number;

  test('off a terminal it streams one line per new attempt until killed', async () => {
    // Runs alone too (tmux missing): make sure an attempt exists for --tail 1 to print.
    if ((await recorded()) === 0) {
      await call();
      for (let i = 0; i < 100 && (await recorded()) < 2; i++) await new Promise((r) => setTimeout(r, 50));
    }
    // --tail 1: the newest existing attempt first, which also says the watcher is reading.
    const watch = start(['watch', '--db', db, '--tail', '1']);
    const attemptLines = () => watch.out.split('\n').filter((l) => l.includes(' attempt '));
    await until(() => attemptLines().length === 1, `the existing attempt\n${watch.out}`);
    await call();
    await until(() => attemptLines().length >= 3, `two new lines\n${watch.out}`, 6000);
    const lines = attemptLines().slice(1);
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.includes('failure'))).toMatch(/ attempt failure status=500 .*hook=Ledger event=channel_answer/);
    watch.child.kill('SIGTERM');
    expect(await exited(watch)).toBe(0);
  });
});

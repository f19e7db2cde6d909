import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runTel, TEL_BIN } from '../../test/helpers/cli.js';
import { httpRequest, startTestServer, tempDir, type TestServer } from '../../test/helpers/server.js';
import { startSink, type Sink } from '../../test/helpers/sink.js';
import { breakerOf } from './breakers.js';
import { isGone, processIdentity } from '../util/process-identity.js';
import { underMutation } from '../../test/helpers/mutation.js';

/** The project's root, where `npx tel` finds this package's command. */
const REPO_ROOT = dirname(dirname(TEL_BIN));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setWebhookConfig(srv: TestServer, values: Record<string, number>): Promise<void> {
  const r = await srv.request('POST', '/v2/system_configs/webhooks', { token: srv.adminToken, data: { default: values } });
  expect(r.status, r.text).toBe(200);
}

async function createHook(srv: TestServer, account: string, name: string, uri: string, retries = 0): Promise<string> {
  const r = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, {
    token: srv.adminToken,
    data: { name, uri, hook: 'channel_create', format: 'json', retries },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.data.id;
}

async function fire(base: string, token: string, account: string): Promise<string> {
  const r = await httpRequest(base, 'PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', answer: false } });
  expect(r.status, r.text).toBe(201);
  return r.body.data.events[0].call_id as string;
}

describe('what becomes of a try: recorded, retried on schedule, failed for good', () => {
  let srv: TestServer;
  let sink: Sink;

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
  });
  afterAll(async () => {
    await srv?.close();
    await sink?.close();
  });

  /** `/metrics`' delivery tries of webhooks, by outcome. */
  const tries = async () => {
    const text = await (await fetch(`${srv.url}/metrics`)).text();
    const n = (outcome: string) => Number(new RegExp(`^tel_delivery_tries_total\\{kind="webhook",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { delivered: n('delivered'), retrying: n('retrying'), failed: n('failed') };
  };

  it('each retry waits its turn of the schedule or what Retry-After asks, held to the maximum; the last failure disables a hook', async () => {
    // long waits, so that each row stays pending where its next try was scheduled
    await setWebhookConfig(srv, { retry_base_delay_ms: 60_000, retry_max_delay_ms: 600_000, attempt_failure_count: 1 });
    const seen = new Map<string, number>();
    sink.respond((r) => {
      const n = (seen.get(r.path) ?? 0) + 1;
      seen.set(r.path, n);
      if (r.path === '/second' && n === 1) return { status: 503, headers: { 'retry-after': '0' } };
      if (r.path === '/after') return { status: 503, headers: { 'retry-after': '30' } };
      if (r.path === '/capped') return { status: 429, headers: { 'retry-after': '99999' } };
      if (r.path === '/ok') return { status: 200, body: 'fine' };
      return { status: 500, body: 'no' };
    });
    const account = srv.master.account_id;
    const hooks: Record<string, string> = {};
    for (const [path, retries] of [['first', 3], ['second', 3], ['after', 3], ['capped', 3], ['ok', 3], ['last', 0]] as const) {
      hooks[path] = await createHook(srv, account, path, `${sink.url}/${path}`, retries);
    }
    const before = await tries();
    await fire(srv.url, srv.adminToken, account);
    await sink.waitFor(7, { timeoutMs: 10_000 });
    const row = (path: string) =>
      srv.core.db.prepare('SELECT status, tries, due_at, owner, lease_until FROM outbox WHERE source_id = ?').get(hooks[path]) as {
        status: string; tries: number; due_at: number; owner: string | null; lease_until: number | null;
      };
    const attempts = async (path: string) => {
      const r = await srv.request('GET', `/v2/accounts/${account}/webhooks/${hooks[path]}/attempts`, { token: srv.adminToken });
      expect(r.status, r.text).toBe(200);
      return r.body.data as Record<string, unknown>[];
    };
    const deadline = Date.now() + 10_000;
    while (Object.keys(hooks).some((p) => ['sending'].includes(row(p).status) || (p === 'second' && row(p).tries < 2)) && Date.now() < deadline) await sleep(20);
    const waited = async (path: string) => {
      const [last] = await attempts(path);
      return row(path).due_at - (srv.core.db.prepare('SELECT created FROM delivery_attempts WHERE id = ?').get(last.id as number) as { created: number }).created;
    };
    // the first retry waits the base, the second twice as long; Retry-After instead, up to the maximum
    expect(await waited('first')).toBe(60_000);
    expect(await waited('second')).toBe(120_000);
    expect(await waited('after')).toBe(30_000);
    expect(await waited('capped')).toBe(600_000);
    for (const p of ['first', 'after', 'capped']) expect(row(p)).toEqual({ status: 'pending', tries: 1, due_at: row(p).due_at, owner: null, lease_until: null });
    expect(row('second')).toMatchObject({ status: 'pending', tries: 2, owner: null, lease_until: null });
    expect(row('ok')).toMatchObject({ status: 'delivered', tries: 1, owner: null, lease_until: null });
    expect(row('last')).toMatchObject({ status: 'failed', tries: 1, owner: null, lease_until: null });

    // the attempts as the API lists them, newest first
    const second = await attempts('second');
    expect(second.map((a) => [a.try, a.result, a.resp_status_code, a.reason, a.retries_left])).toEqual([
      [2, 'failure', '500', 'bad response code', 2],
      [1, 'failure', '503', 'bad response code', 3],
    ]);
    expect(second[0]).toMatchObject({ hook_id: hooks.second, hook_name: 'second', hook_event: 'channel_create', uri: `${sink.url}/second`, method: 'post', resp_body: 'no' });
    const [ok] = await attempts('ok');
    expect(ok).toMatchObject({ result: 'success', try: 1, resp_status_code: '200', resp_body: 'fine' });
    expect(ok).not.toHaveProperty('retries_left');
    // the request recorded is the one the endpoint got
    const got = sink.requests.find((r) => r.path === '/ok')!;
    expect(ok.req_body).toBe(got.body);
    expect((ok.req_headers as Record<string, string>)['x-event-id']).toBe(got.headers['x-event-id']);
    expect(ok.event_id).toBe(got.headers['x-event-id']);
    const [last] = await attempts('last');
    expect(last).toMatchObject({ result: 'failure', try: 1, retries_left: 0 });

    // a delivery that failed for good counts towards its hook's auto-disable (here: the first does it)
    const hook = await srv.request('GET', `/v2/accounts/${account}/webhooks/${hooks.last}`, { token: srv.adminToken });
    expect(hook.body.data).toMatchObject({ enabled: false });
    expect(hook.body.data.disable_reason).toMatch(/500 bad response code/);
    for (const p of ['first', 'second', 'ok']) {
      const h = await srv.request('GET', `/v2/accounts/${account}/webhooks/${hooks[p]}`, { token: srv.adminToken });
      expect(h.body.data.enabled, p).toBe(true);
    }
    const after = await tries();
    expect([after.delivered - before.delivered, after.retrying - before.retrying, after.failed - before.failed]).toEqual([1, 5, 1]);
  });
});

describe('one endpoint never starves the others', () => {
  let srv: TestServer;
  let sink: Sink;

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
  });
  afterAll(async () => {
    sink.releaseHung();
    await srv?.close();
    await sink?.close();
  });

  it('a path that never answers, on the same host and port as three live hooks, holds only its own deliveries', async () => {
    // Few slots per target and a long timeout: if targets were shared per origin, the dead path
    // would hold all of them and nothing else would arrive while it hangs.
    await setWebhookConfig(srv, { per_target_concurrency: 2, request_timeout_ms: 30_000 });
    sink.respond((r) => (r.path === '/dead' ? 'hang' : { status: 200 }));
    const account = srv.master.account_id;
    await createHook(srv, account, 'Dead', `${sink.url}/dead`);
    for (const name of ['A', 'B', 'C']) await createHook(srv, account, name, `${sink.url}/live/${name}`);
    const calls = 20;
    for (let i = 0; i < calls; i++) await fire(srv.url, srv.adminToken, account);
    const live = await sink.waitFor(calls * 3, { filter: (r) => r.path.startsWith('/live/'), timeoutMs: 10_000 });
    expect(live).toHaveLength(calls * 3);
    expect(sink.requests.filter((r) => r.path === '/dead').length).toBe(2);
  });

  it("rows another process wrote behind a dead endpoint's older backlog of 3,000 are claimed for the live ones", async () => {
    await setWebhookConfig(srv, { per_target_concurrency: 2, request_timeout_ms: 30_000 });
    sink.respond((r) => (r.path.startsWith('/backlog-dead') ? 'hang' : { status: 200 }));
    const { enqueueDelivery } = await import('./outbox.js');
    const { transaction } = await import('../store/db.js');
    const { openCore, closeCore } = await import('../core.js');
    // a second connection to the file, as the offline CLI has: its rows wait on disk, pending,
    // until the server claims them; the dead endpoint's come first in due order
    const other = openCore(srv.dbFile);
    const probe = (sourceId: string, path: string, i: number) =>
      enqueueDelivery(other, { kind: 'probe', accountId: srv.master.account_id, sourceId, eventName: 'probe', url: `${sink.url}${path}`, method: 'post', payload: { i } });
    try {
      transaction(other.db, () => {
        for (let i = 0; i < 3000; i++) probe('backlog-dead', '/backlog-dead', i);
      });
      transaction(other.db, () => {
        for (let i = 0; i < 40; i++) for (const name of ['a', 'z']) probe(`backlog-live-${name}`, `/backlog-live/${name}`, i);
      });
    } finally {
      closeCore(other);
    }
    const live = await sink.waitFor(80, { filter: (r) => r.path.startsWith('/backlog-live/'), timeoutMs: 10_000 });
    expect(live).toHaveLength(80);
    expect(new Set(live.map((r) => `${r.path} ${JSON.parse(r.body).i}`)).size).toBe(80);
    // the dead endpoint holds its two slots only; its rows wait, none dropped
    expect(sink.requests.filter((r) => r.path === '/backlog-dead').length).toBe(2);
    const { n } = srv.core.db.prepare("SELECT COUNT(*) AS n FROM outbox WHERE source_id = 'backlog-dead' AND status IN ('pending', 'sending')").get() as { n: number };
    expect(n).toBe(3000);
  });
});

describe('the circuit breaker of a failing endpoint', () => {
  let srv: TestServer;
  let sink: Sink;

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
  });
  afterAll(async () => {
    await srv?.close();
    await sink?.close();
  });

  it('opens after the threshold (one try at a time), keeps every delivery, and closes when the endpoint answers', async () => {
    await setWebhookConfig(srv, { breaker_failure_threshold: 3, per_target_concurrency: 8, retry_base_delay_ms: 50, retry_max_delay_ms: 200 });
    let failing = true;
    let active = 0;
    let maxActiveWhileOpen = 0;
    const answered = new Set<string>();
    sink.respond(async (r) => {
      active++;
      if (failing) {
        await sleep(20);
        active--;
        return { status: 503 };
      }
      active--;
      answered.add(JSON.parse(r.body).call_id);
      return { status: 200 };
    });
    const account = srv.master.account_id;
    const hookId = await createHook(srv, account, 'Flaky', `${sink.url}/flaky`, 4);
    const calls = 30;
    const ids = new Set<string>();
    for (let i = 0; i < calls; i++) ids.add(await fire(srv.url, srv.adminToken, account));
    const deadline = Date.now() + 5000;
    while (breakerOf(srv.core, hookId)?.state !== 'open' && Date.now() < deadline) await sleep(20);
    expect(breakerOf(srv.core, hookId)?.state).toBe('open');
    // while open, the endpoint sees one try at a time
    const watchUntil = Date.now() + 500;
    while (Date.now() < watchUntil) {
      maxActiveWhileOpen = Math.max(maxActiveWhileOpen, active);
      await sleep(2);
    }
    expect(maxActiveWhileOpen).toBeLessThanOrEqual(1);
    const shown = await runTel(['webhooks', 'list', '--db', srv.dbFile, '--account', account]);
    expect(shown.stdout).toMatch(/open \(\d+ failures\)/);
    failing = false;
    // nothing is dropped: every call's channel_create gets its 200 once the endpoint answers
    const until = Date.now() + 15_000;
    while ((answered.size < ids.size || breakerOf(srv.core, hookId)?.state !== 'closed') && Date.now() < until) await sleep(20);
    expect([...ids].filter((id) => !answered.has(id))).toEqual([]);
    expect(breakerOf(srv.core, hookId)?.state).toBe('closed');
  });
});

describe.skipIf(underMutation)('proof of life of a sender', () => {
  it('a zombie, a reused pid and a pid that is gone are gone; this process is not', async () => {
    expect(isGone(processIdentity())).toBe(false);
    // `sleep 0` exits at once and stays a zombie: its parent (exec'd into `sleep 5`) never reaps it
    const maker = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5']);
    const zombie = await new Promise<number>((resolve) => maker.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
    try {
      await sleep(200);
      expect(isGone(`${hostname()}/${zombie}/0`)).toBe(true);
      expect(isGone(`${hostname()}/${maker.pid}/0`)).toBe(false);
      const [host, pid] = processIdentity().split('/');
      expect(isGone(`${host}/${pid}/1`)).toBe(true); // same pid, another start time: a reused pid
      expect(isGone(`${hostname()}/999999999/0`)).toBe(true);
      expect(isGone(`another-host/${process.pid}/0`)).toBe(false); // cannot tell: the lease decides
    } finally {
      maker.kill('SIGKILL');
    }
  });
});

/**
 * `tel serve` as its own process group; resolves with its URL once it listens. `npx`: started as
 * a user starts it, `npx tel serve` (npm, a shell and node in the group), else node bin/tel.js.
 */
function serveGroup(db: string, how: 'npx' | 'node' = 'node'): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const args = ['serve', '--db', db, '--port', '0'];
    const child =
      how === 'npx'
        ? spawn('npx', ['--no-install', 'tel', ...args], { cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(process.execPath, [TEL_BIN, ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`tel serve did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /tel listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr!.on('data', (d) => (out += d));
  });
}

describe.skipIf(underMutation)('a killed server: every acknowledged event arrives within 5 s of an immediate restart', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'crash.db');
  let sink: Sink;
  const groups: ChildProcess[] = [];

  beforeAll(async () => {
    sink = await startSink();
  });
  afterEach(() => {
    for (const c of groups.splice(0)) {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
  afterAll(async () => {
    await sink.close();
    tmp.cleanup();
  });

  it('SIGKILL of the whole process group with deliveries queued, restarted at once on the same file', async () => {
    const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'secret-pass']);
    expect(init.code, init.stderr).toBe(0);
    const { account_id: account, api_key: apiKey } = JSON.parse(init.stdout);
    const hook = await runTel(['webhooks', 'create', '--db', db, '--account', account, '--name', 'Slow', '--uri', `${sink.url}/slow`, '--hook', 'channel_create', '--format', 'json']);
    expect(hook.code, hook.stderr).toBe(0);
    sink.respond(async () => {
      await sleep(50);
      return { status: 200 };
    });
    const first = await serveGroup(db, 'npx');
    groups.push(first.child);
    const login = await httpRequest(first.url, 'PUT', '/v2/api_auth', { data: { api_key: apiKey } });
    const token = login.body.auth_token;
    const acknowledged: string[] = [];
    const firing = Array.from({ length: 8 }, async () => {
      for (let i = 0; i < 40; i++) acknowledged.push(await fire(first.url, token, account));
    });
    await Promise.all(firing);
    // all 320 acknowledged; at 16 in flight and 50 ms each, most are still queued
    process.kill(-first.child.pid!, 'SIGKILL');
    const killedAt = Date.now();
    // The killed server's connections: a request it had sent may reach the sink just after the kill.
    const firstServerPorts = new Set(sink.requests.filter((r) => r.at <= killedAt).map((r) => r.remotePort));
    // started again at once; the 5 s count from this command, the server's start-up included
    const restartedAt = Date.now();
    const second = await serveGroup(db, 'npx');
    groups.push(second.child);
    // the sink answers in this process: each request's body is read once, not on every look
    const delivered = new Set<string>();
    let read = 0;
    const missing = () => {
      for (; read < sink.requests.length; read++) delivered.add(JSON.parse(sink.requests[read].body).call_id);
      return acknowledged.filter((id) => !delivered.has(id));
    };
    while (missing().length > 0 && Date.now() - restartedAt < 5000) await sleep(50);
    expect(missing(), `undelivered ${Date.now() - restartedAt} ms after the restart`).toEqual([]);
    // none twice unless the killed server had really sent it
    const sentByFirst = new Set(sink.requests.filter((r) => firstServerPorts.has(r.remotePort)).map((r) => JSON.parse(r.body).call_id));
    const counts = new Map<string, number>();
    for (const r of sink.requests) {
      const id = JSON.parse(r.body).call_id as string;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, n] of counts) if (n > 1) expect(sentByFirst.has(id), id).toBe(true);
    expect(acknowledged.length).toBe(320);
  });
});

describe.skipIf(underMutation)('two servers on one file', () => {
  it('while both are alive, no delivery is sent by both', async () => {
    const srv = await startTestServer();
    const sink = await startSink();
    const { openCore, closeCore } = await import('../core.js');
    const { startApi } = await import('../http/app.js');
    const core2 = openCore(srv.dbFile);
    const api2 = await startApi(core2, '127.0.0.1', 0);
    try {
      sink.respond(async () => {
        await sleep(5);
        return { status: 200 };
      });
      await createHook(srv, srv.master.account_id, 'Both', `${sink.url}/both`);
      const ids: string[] = [];
      // fired at both servers: each one's sender races for every row
      await Promise.all(
        [srv.url, api2.url].map(async (base) => {
          for (let i = 0; i < 100; i++) ids.push(await fire(base, srv.adminToken, srv.master.account_id));
        }),
      );
      await sink.waitFor(200, { timeoutMs: 10_000 });
      await sleep(300);
      const seen = sink.requests.map((r) => JSON.parse(r.body).call_id as string);
      expect(seen).toHaveLength(200);
      expect(new Set(seen).size).toBe(200);
      expect(new Set(ids)).toEqual(new Set(seen));
    } finally {
      await api2.close();
      closeCore(core2);
      await srv.close();
      await sink.close();
    }
  });
});

describe('backpressure: a backlog waits on disk, not in memory', () => {
  it('300 deliveries to five slow endpoints: a few rows per target are held at a time, and every one arrives', async () => {
    const srv = await startTestServer();
    const sink = await startSink();
    try {
      await setWebhookConfig(srv, { per_target_concurrency: 4 });
      sink.respond(async () => {
        await sleep(150);
        return { status: 200 };
      });
      const { enqueueDelivery } = await import('./outbox.js');
      const { transaction } = await import('../store/db.js');
      transaction(srv.core.db, () => {
        for (let i = 0; i < 300; i++) {
          enqueueDelivery(srv.core, {
            kind: 'probe',
            accountId: srv.master.account_id,
            sourceId: `slow-${i % 5}`,
            eventName: 'probe',
            url: `${sink.url}/slow/${i % 5}`,
            method: 'post',
            payload: { i },
          });
        }
      });
      let maxHeld = 0;
      const until = Date.now() + 30_000;
      while (sink.requests.length < 300 && Date.now() < until) {
        const { n } = srv.core.db.prepare("SELECT COUNT(*) AS n FROM outbox WHERE status = 'sending'").get() as { n: number };
        maxHeld = Math.max(maxHeld, n);
        await sleep(20);
      }
      expect(new Set(sink.requests.map((r) => JSON.parse(r.body).i)).size).toBe(300);
      // a slow target keeps two rounds of its concurrency in memory, plus the round whose results
      // are about to be recorded: 5 targets × 4 × 3 (a quick target would hold 4 × 32 each)
      expect(maxHeld).toBeLessThanOrEqual(60);
    } finally {
      await srv.close();
      await sink.close();
    }
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel, spawnTel } from './helpers/cli.js';
import { httpRequest, startTestServer, tempDir } from './helpers/server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { startTelServe, until, type TelProcess } from './helpers/tel-process.js';

/** CPU time (user + system) a process has used, in clock ticks (1/100 s on Linux). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * An idle server uses almost none of a core once settled (0.02-0.09 measured, on a busy machine). A
 * timer that overflowed fires at once, again and again: measured with the bound taken out of
 * setLongTimeout, 0.15 of a core while printing a TimeoutOverflowWarning each time (which the
 * tests look for), and a re-armed timer that printed nothing would spin it near 1.
 */
const IDLE_SHARE = 0.3;

/** The share of one core a process used over `ms` (0..1). */
async function cpuShare(pid: number, ms: number): Promise<number> {
  const before = cpuTicks(pid);
  await new Promise((r) => setTimeout(r, ms));
  return (cpuTicks(pid) - before) / (ms / 10);
}

/** The longest a server is given to settle (see settled). */
const SETTLE_MS = 10_000;

/**
 * Waits for a started server's start-up work to end: it compiles its validators and optimises its
 * code on threads of its own, 1-1.5 s of CPU that a busy machine stretches over several seconds
 * (a window opened 1.5 s after the start measured 0.33 of a core in CI). It has ended once half a
 * second passes with the process under a tenth of a core; a server kept busy never gets there,
 * and is measured all the same after SETTLE_MS.
 */
async function settled(pid: number): Promise<void> {
  const end = Date.now() + SETTLE_MS;
  while (Date.now() < end && (await cpuShare(pid, 500)) >= 0.1);
}

const DAY_MS = 86_400_000;

/**
 * Row 1 of the hostile-tenant review: a rate of 1e-7 a second, or a retry delay of 3e9 ms, made a
 * timer longer than Node's 2^31 − 1 ms, which fires after 1 ms instead — thousands of
 * TimeoutOverflowWarning lines a second and a busy core, after the hooks were gone and after a
 * restart. Here a database as an older tel left it (values written before they were bounded)
 * is served by a real `tel serve`.
 */
describe('timers longer than Node can wait, from values stored before they were bounded', () => {
  let dir: ReturnType<typeof tempDir>;
  let db: string;
  let sink: Sink;
  let serve: (TelProcess & { url: string }) | undefined;
  let account: string;
  let apiKey: string;
  const hooks: Record<'paced' | 'retrying', string> = { paced: '', retrying: '' };

  beforeAll(async () => {
    dir = tempDir();
    db = join(dir.dir, 'tel.db');
    sink = await startSink();
    const init = await spawnTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw-admin-1']);
    expect(init.code, init.stderr).toBe(0);
    ({ account_id: account, api_key: apiKey } = JSON.parse(init.stdout));
    for (const [name, uri] of [['paced', `${sink.url}/paced`], ['retrying', 'http://127.0.0.1:1/dead']] as const) {
      const made = await spawnTel(['webhooks', 'create', '--db', db, '--account', account, '--name', name, '--uri', uri, '--hook', 'channel_create', '--json']);
      expect(made.code, made.stderr).toBe(0);
      hooks[name] = JSON.parse(made.stdout).id;
    }
    // what an older tel let a tenant store: a pace of one try in 115 days, retries 35 days apart
    const file = new DatabaseSync(db, { timeout: 5000 });
    const doc = JSON.parse((file.prepare('SELECT doc FROM webhooks WHERE id = ?').get(hooks.paced) as { doc: string }).doc);
    file.prepare('UPDATE webhooks SET doc = ? WHERE id = ?').run(JSON.stringify({ ...doc, rate_limit_per_s: 1e-7 }), hooks.paced);
    file
      .prepare("INSERT INTO account_configs (account_id, category, doc, rev, modified) VALUES (?, 'webhooks', ?, '1-x', 0)")
      .run(account, JSON.stringify({ retry_base_delay_ms: 3e9, retry_max_delay_ms: 3e9 }));
    file.close();
    for (let i = 0; i < 2; i++) expect((await spawnTel(['simulate', 'call', '--db', db, '--account', account])).code).toBe(0);
    // the dead hook's deliveries wait for a retry 35 days away, as the first try would have scheduled it;
    // the paced hook's were queued with its pace as it was stored (this tel queues them at the bound)
    const later = new DatabaseSync(db, { timeout: 5000 });
    later.prepare('UPDATE outbox SET due_at = ?, tries = 1 WHERE source_id = ?').run(Date.now() + 35 * DAY_MS, hooks.retrying);
    later.prepare('UPDATE outbox SET rate_per_s = 1e-7 WHERE source_id = ?').run(hooks.paced);
    const paced = later.prepare("SELECT COUNT(*) AS n FROM outbox WHERE source_id = ? AND status = 'pending' AND rate_per_s < 0.001").get(hooks.paced) as { n: number };
    later.close();
    expect(paced.n).toBeGreaterThanOrEqual(2);
  }, 60_000);

  afterAll(async () => {
    await serve?.stop();
    await sink?.close();
    dir?.cleanup();
  });

  /** Serves the file, lets it settle, and answers the share of a core it then uses and what it printed. */
  async function serveAndWatch(): Promise<{ cpu: number; stderr: string }> {
    serve = await startTelServe(db);
    await settled(serve.child.pid!);
    const cpu = await cpuShare(serve.child.pid!, 2000);
    return { cpu, stderr: serve.stderr };
  }

  it('a server sends the first paced delivery, then idles: no overflowing timer, no busy core', async () => {
    const { cpu, stderr } = await serveAndWatch();
    expect(sink.requests.filter((r) => r.path === '/paced')).toHaveLength(1);
    expect(stderr).not.toContain('TimeoutOverflowWarning');
    expect(cpu).toBeLessThan(IDLE_SHARE);
  }, 30_000);

  it('after a restart on the same file, the same', async () => {
    await serve!.stop();
    const { cpu, stderr } = await serveAndWatch();
    expect(stderr).not.toContain('TimeoutOverflowWarning');
    expect(cpu).toBeLessThan(IDLE_SHARE);
  }, 30_000);

  it("deleting the hooks takes their waiting deliveries with them; the server stays idle", async () => {
    const login = await httpRequest(serve!.url, 'PUT', '/v2/api_auth', { data: { api_key: apiKey } });
    const token = login.body.auth_token as string;
    for (const id of Object.values(hooks)) {
      expect((await httpRequest(serve!.url, 'DELETE', `/v2/accounts/${account}/webhooks/${id}`, { token })).status).toBe(200);
    }
    const file = new DatabaseSync(db, { readOnly: true, timeout: 5000 });
    const waiting = file.prepare("SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending'").get() as { n: number };
    const cancelled = file.prepare("SELECT COUNT(*) AS n FROM outbox WHERE status = 'cancelled'").get() as { n: number };
    file.close();
    expect(waiting.n).toBe(0);
    expect(cancelled.n).toBeGreaterThanOrEqual(2);
    expect(await cpuShare(serve!.child.pid!, 2000)).toBeLessThan(IDLE_SHARE);
    expect(serve!.stderr).not.toContain('TimeoutOverflowWarning');
  }, 30_000);
});

describe("a deleted hook's waiting deliveries, at the sizes labs reach", () => {
  /** Makes `n` deliveries of a hook wait (retries due in an hour), as a dead endpoint leaves them. */
  function backlog(file: string, hookId: string, n: number): void {
    const db = new DatabaseSync(file, { timeout: 5000 });
    try {
      const seed = db.prepare('SELECT * FROM outbox WHERE source_id = ? LIMIT 1').get(hookId) as Record<string, unknown>;
      const columns = Object.keys(seed).filter((c) => c !== 'id' && c !== 'event_id');
      db.prepare(
        `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
         INSERT INTO outbox (event_id, ${columns.join(', ')}) SELECT 'e' || i, ${columns.map((c) => (c === 'status' ? "'pending'" : c === 'due_at' ? '?' : c)).join(', ')}
         FROM k, outbox WHERE outbox.id = ?`,
      ).run(n, Date.now() + 3_600_000, seed.id as number);
    } finally {
      db.close();
    }
  }
  const waiting = (file: string, hookId: string) => {
    const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM outbox WHERE source_id = ? AND status = 'pending'").get(hookId) as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it('deleting the hook over HTTP cancels 5,000 of them, a batch a commit; tel webhooks delete too', async () => {
    const srv = await startTestServer();
    try {
      const account = srv.master.account_id;
      const hooks: string[] = [];
      for (const name of ['over http', 'offline']) {
        const r = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, { token: srv.adminToken, data: { name, uri: 'http://127.0.0.1:1/dead', hook: 'channel_create', retries: 4 } });
        hooks.push(r.body.data.id);
      }
      await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token: srv.adminToken, data: { kind: 'call', answer: false } });
      for (const id of hooks) {
        await until(() => {
          const db = new DatabaseSync(srv.dbFile, { readOnly: true, timeout: 5000 });
          try {
            return db.prepare('SELECT 1 FROM outbox WHERE source_id = ?').get(id);
          } finally {
            db.close();
          }
        }, 'the first delivery');
        backlog(srv.dbFile, id, 5000);
        expect(waiting(srv.dbFile, id)).toBeGreaterThanOrEqual(5000);
      }
      expect((await srv.request('DELETE', `/v2/accounts/${account}/webhooks/${hooks[0]}`, { token: srv.adminToken })).status).toBe(200);
      await until(() => waiting(srv.dbFile, hooks[0]) === 0, 'every waiting delivery of the deleted hook to be cancelled');
      const offline = await runTel(['webhooks', 'delete', hooks[1], '--account', account, '--db', srv.dbFile]);
      expect(offline.code, offline.stderr).toBe(0);
      expect(waiting(srv.dbFile, hooks[1])).toBe(0);
    } finally {
      await srv.close();
    }
  }, 60_000);
});

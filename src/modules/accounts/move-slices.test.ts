import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../core-type.js';
import { join } from 'node:path';
import { createSubAccount, httpRequest, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';
import { heldSinceLast, startTel, startTelServeWatched, until, type TelProcess } from '../../../test/helpers/tel-process.js';
import { initDatabase } from './bootstrap.js';
import { closeCore, openCore } from '../../core.js';
import { startApi } from '../../http/app.js';
import { transaction } from '../../store/db.js';
import { createAccount } from './service.js';
import { MAX_TREE_DEPTH } from './tree-index.js';

/** Whether every account's line is its parent's line and its parent. */
function linesFollowParents(core: Core): boolean {
  const wrong = core.db.prepare("SELECT COUNT(*) AS n FROM accounts a JOIN accounts p ON p.id = a.parent_id WHERE a.tree <> json_insert(p.tree, '$[#]', p.id)").get() as { n: number };
  return wrong.n === 0;
}

/** The closure table as it is, and as each account's `tree` says it must be. */
function closureMatchesTrees(core: Core): boolean {
  const rows = (core.db.prepare('SELECT ancestor_id, account_id, depth FROM account_tree').all() as { ancestor_id: string; account_id: string; depth: number }[])
    .map((r) => `${r.ancestor_id}>${r.account_id}:${r.depth}`)
    .sort();
  const wanted = (core.db.prepare('SELECT id, tree FROM accounts').all() as { id: string; tree: string }[])
    .flatMap((a) => (JSON.parse(a.tree) as string[]).map((anc, i, line) => `${anc}>${a.id}:${line.length - i}`))
    .sort();
  return JSON.stringify(rows) === JSON.stringify(wanted);
}

/** A subtree of `size` accounts under `parent`: children of the root, each with a few of their own. */
function subtree(core: Core, parent: string, name: string, size: number): string {
  return transaction(core.db, () => {
    const root = createAccount(core, { name }, { parentId: parent }).id;
    let made = 1;
    for (let i = 0; made < size; i++) {
      const child = createAccount(core, { name: `${name} c${i}` }, { parentId: root }).id;
      made++;
      for (let j = 0; j < 4 && made < size; j++, made++) createAccount(core, { name: `${name} c${i} g${j}` }, { parentId: child });
    }
    return root;
  });
}

/**
 * Row 3 of the third hostile-tenant review: moving accounts (scripts/bench/account-move.mjs moves
 * 10,000; the suite 5,000).
 */
describe('who moves accounts; how deep a tree goes', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("an account admin cannot move accounts by default (Kazoo's allow_move: superduper_admin)", async () => {
    const a = await createSubAccount(srv, srv.master.account_id, 'Tenant A');
    const x = await createSubAccount(srv, a.id, 'A x');
    const y = await createSubAccount(srv, a.id, 'A y');
    const r = await srv.request('POST', `/v2/accounts/${x.id}/move`, { token: await srv.apiLogin(a.apiKey), data: { to: y.id } });
    expect(r.status).toBe(403);
    expect(r.body.data.cause).toMatch(/needs a super-duper admin/);
  });

  it(`a tree goes ${MAX_TREE_DEPTH} levels below the master account at most: a deeper account or move is a 400`, async () => {
    let parent = srv.master.account_id;
    const chain: string[] = [];
    transaction(srv.core.db, () => {
      for (let i = 1; i <= MAX_TREE_DEPTH; i++) chain.push((parent = createAccount(srv.core, { name: `Level ${i}` }, { parentId: parent }).id));
    });
    const deeper = await srv.request('PUT', `/v2/accounts/${parent}`, { token: srv.adminToken, data: { name: 'Too deep' } });
    expect(deeper.status).toBe(400);
    expect(deeper.body.data.tree.maximum).toMatchObject({ target: MAX_TREE_DEPTH, message: expect.stringMatching(/at most 32 levels below the master account/) });
    // a subtree two deep moved under level 31 would put its leaf at 33
    const two = await createSubAccount(srv, srv.master.account_id, 'Two');
    await createSubAccount(srv, two.id, 'Two below');
    const move = await srv.request('POST', `/v2/accounts/${two.id}/move`, { token: srv.adminToken, data: { to: chain[30] } });
    expect(move.status).toBe(400);
    expect(move.body.data.to.maximum).toMatchObject({ target: MAX_TREE_DEPTH });
    expect((await srv.request('POST', `/v2/accounts/${two.id}/move`, { token: srv.adminToken, data: { to: chain[29] } })).status).toBe(200);
  });
});

/**
 * How long another tenant's requests (GET of its own account, one after another) took until `work`
 * ended: the slowest, the 95th percentile, and how many were answered.
 */
async function othersWorst(url: string, tenant: { id: string; token: string }, work: Promise<unknown>): Promise<{ worst: number; p95: number; answered: number }> {
  let done = false;
  void work.finally(() => (done = true));
  const took: number[] = [];
  while (!done) {
    const started = performance.now();
    expect((await httpRequest(url, 'GET', `/v2/accounts/${tenant.id}`, { token: tenant.token })).status).toBe(200);
    took.push(performance.now() - started);
  }
  took.sort((a, b) => a - b);
  return { worst: took.at(-1) ?? 0, p95: took[Math.floor(took.length * 0.95)] ?? 0, answered: took.length };
}

describe('a 5,000-account move on a real server', () => {
  const tmp = tempDir('tel-move-');
  const db = join(tmp.dir, 'tel.db');
  let serve: TelProcess & { url: string };
  let ids: { master: string; masterKey: string; tenant: string; tenantKey: string; from: string; to: string; root: string };

  beforeAll(async () => {
    const core = openCore(db);
    try {
      const init = initDatabase(core, { account: 'Master', username: 'admin', password: 'admin-pass' });
      const tenant = createAccount(core, { name: 'Tenant B' }, { parentId: init.account_id });
      const from = createAccount(core, { name: 'Old Parent' }, { parentId: init.account_id }).id;
      const to = createAccount(core, { name: 'New Parent' }, { parentId: init.account_id }).id;
      ids = { master: init.account_id, masterKey: init.api_key, tenant: tenant.id, tenantKey: tenant.apiKey, from, to, root: subtree(core, from, 'Big', 5000) };
    } finally {
      closeCore(core);
    }
    serve = await startTelServeWatched(db);
  }, 60_000);
  afterAll(async () => {
    await serve?.stop();
    tmp.cleanup();
  });

  it("another tenant's requests wait no more than 50 ms while it moves", async () => {
    const login = async (api_key: string) => (await httpRequest(serve.url, 'PUT', '/v2/api_auth', { data: { api_key } })).body.auth_token as string;
    const admin = await login(ids.masterKey);
    const tenant = { id: ids.tenant, token: await login(ids.tenantKey) };
    // what this machine's own load makes of the same requests, moving nothing: before and after
    const quietFor = (ms: number) => othersWorst(serve.url, tenant, new Promise((r) => setTimeout(r, ms)));
    const before = await quietFor(1000);
    await heldSinceLast(serve);
    const started = performance.now();
    const move = httpRequest(serve.url, 'POST', `/v2/accounts/${ids.root}/move`, { token: admin, data: { to: ids.to } });
    const during = await othersWorst(serve.url, tenant, move);
    const moved = await move;
    const held = await heldSinceLast(serve);
    const after = await quietFor(Math.min(performance.now() - started, 10_000));
    expect(moved.status, moved.text).toBe(200);
    expect(during.answered).toBeGreaterThan(5);
    // the client's view, by its 95th percentile: one request's worst, on a machine busy with other
    // test files, came to 114 ms against a quiet 63 ms in a whole-suite run; a move's slice
    // that held the loop is the server's own view's to catch, just below
    expect(during.p95).toBeLessThan(50 + Math.max(before.worst, after.worst));
    // the server's own view: no slice of the move held its loop for 50 ms of CPU (quiet: 12-27 ms
    // at 10,000 accounts, scripts/bench/account-move.mjs), whatever else the machine runs
    expect(held).toBeLessThan(50);
    const below = await httpRequest(serve.url, 'GET', `/v2/accounts/${ids.to}/descendants?page_size=1`, { token: admin });
    expect(below.body.data[0].tree.slice(0, 2)).toEqual([ids.master, ids.to]);
    expect((await httpRequest(serve.url, 'GET', `/v2/accounts/${ids.from}/descendants`, { token: admin })).body.data).toEqual([]);
    const core = openCore(db);
    try {
      expect(closureMatchesTrees(core) && linesFollowParents(core)).toBe(true);
    } finally {
      closeCore(core);
    }
  }, 120_000);
});

describe('a move a process left half-way', () => {
  it('is finished by the next server on the file', async () => {
    const srv = await startTestServer();
    try {
      const from = await createSubAccount(srv, srv.master.account_id, 'From');
      const to = await createSubAccount(srv, srv.master.account_id, 'To');
      const root = subtree(srv.core, from.id, 'Half', 2000);
      const mover = startTel(['accounts', 'move', root, '--to', to.id, '--db', srv.dbFile]);
      // killed once it has begun: the moved account rewritten, its subtree not yet
      await until(() => srv.core.db.prepare('SELECT 1 FROM account_moves').get(), 'the move to begin', 20_000);
      await mover.stop('SIGKILL');
      expect(srv.core.db.prepare('SELECT COUNT(*) AS n FROM account_moves').get()).toEqual({ n: 1 });
      expect(linesFollowParents(srv.core)).toBe(false);
      const core = openCore(srv.dbFile);
      const api = await startApi(core, '127.0.0.1', 0);
      try {
        await until(() => (core.db.prepare('SELECT COUNT(*) AS n FROM account_moves').get() as { n: number }).n === 0, 'the move to be finished', 20_000);
        expect(closureMatchesTrees(core) && linesFollowParents(core)).toBe(true);
        expect((core.db.prepare('SELECT COUNT(*) AS n FROM account_tree WHERE ancestor_id = ?').get(to.id) as { n: number }).n).toBe(2000);
      } finally {
        await api.close();
        closeCore(core);
      }
    } finally {
      await srv.close();
    }
  }, 120_000);
});

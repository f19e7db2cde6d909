import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { mergePatch } from '../util/json.js';
import { dropNulls } from '../schema/validate.js';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../util/json.js';
import { apiRouter } from './api-router.js';

const DEEP = 10_000;
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

/** Every row of every table, as text: what "nothing stored" is compared on. */
function snapshot(srv: TestServer): string {
  const tables = srv.core.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  return JSON.stringify(tables.map((t) => [t.name, srv.core.db.prepare(`SELECT * FROM "${t.name}"`).all()]));
}

/** Every route that takes a body (PUT, POST, PATCH, DELETE), from the router itself. */
function writeRoutes(): { method: string; path: string }[] {
  const byLength = (apiRouter() as unknown as { byLength: Map<number, { method: string; path: string }[]> }).byLength;
  return [...byLength.values()].flat().filter((r) => r.method !== 'GET');
}

describe('JSON nested deeper than the limit', () => {
  let srv: TestServer;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    srv = await startTestServer();
    const acct = `/v2/accounts/${srv.master.account_id}`;
    const create = async (endpoint: string, data: Record<string, unknown>) => {
      const r = await srv.request('PUT', `${acct}/${endpoint}`, { token: srv.adminToken, data });
      if (r.status !== 201) throw new Error(`${endpoint}: ${r.status} ${r.text}`);
      ids[endpoint] = r.body.data.id;
    };
    await create('devices', { name: 'Desk' });
    await create('vmboxes', { name: 'Box', mailbox: '100' });
    await create('queues', { name: 'Sales' });
    await create('users', { username: 'deep', password: 'pw-123456', first_name: 'F', last_name: 'L' });
    await create('resources', { name: 'Carrier', gateways: [{ server: 'sip.example.com' }] });
    await create('webhooks', { name: 'Hook', uri: 'http://127.0.0.1:9/x', hook: 'channel_create' });
  });
  afterAll(async () => srv?.close());

  /** A concrete path for a route template: real documents where the route names one. */
  function pathOf(template: string): string {
    const parts = template.split('/');
    return `/v2/${parts
      .map((p, i) => (p === ':account_id' ? srv.master.account_id : p.startsWith(':') ? (ids[parts[i - 1]] ?? 'a'.repeat(32)) : p))
      .join('/')}`;
  }

  it('answers 400 too_deep on every write endpoint, whole body or one field, and stores nothing', async () => {
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const bodies = {
      'data is a deep array': `{"data":${deepArray(DEEP)}}`,
      'a field is a deep array': `{"data":{"name":"n","mailbox":"1","numbers":${deepArray(DEEP)}}}`,
      'a field is a deep object': `{"data":{"name":"n","ui_metadata":${deepObject(DEEP)}}}`,
      'the envelope is deep': `{"data":{"name":"n"},"accept_charges":${deepObject(DEEP)}}`,
    };
    const before = snapshot(srv);
    const seen: string[] = [];
    for (const r of routes) {
      for (const [what, body] of Object.entries(bodies)) {
        const res = await srv.request(r.method, pathOf(r.path), { token: srv.adminToken, body });
        seen.push(`${r.method} ${r.path} (${what}): ${res.status} ${res.body?.data?.json ? Object.keys(res.body.data.json) : res.text.slice(0, 80)}`);
        expect(res.headers.get('content-type')).toBe('application/json');
        if (res.status !== 400 || !res.body?.data?.json?.too_deep) continue;
        expect(res.body).toMatchObject({ status: 'error', error: '400', message: 'invalid json' });
        expect(res.body.data.json.too_deep).toEqual({ message: `JSON must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`, target: MAX_JSON_DEPTH });
      }
    }
    expect(seen.filter((s) => !s.includes(': 400 too_deep'))).toEqual([]);
    expect(snapshot(srv)).toBe(before);
  });

  it('refuses before the token is checked, and on logins', async () => {
    for (const path of ['/v2/api_auth', '/v2/user_auth', `/v2/accounts/${srv.master.account_id}/devices`]) {
      const r = await srv.request('PUT', path, { body: `{"data":{"x":${deepArray(DEEP)}}}` });
      expect(r.status).toBe(400);
      expect(r.body.data.json.too_deep.target).toBe(MAX_JSON_DEPTH);
    }
  });

  it('takes a body exactly at the limit and refuses one level more', async () => {
    // the envelope and `data` are two levels; ui_metadata nests the rest
    const at = `{"data":{"name":"Edge","ui_metadata":${deepObject(MAX_JSON_DEPTH - 2)}}}`;
    const over = `{"data":{"name":"Edge","ui_metadata":${deepObject(MAX_JSON_DEPTH - 1)}}}`;
    const path = `/v2/accounts/${srv.master.account_id}/devices`;
    expect((await srv.request('PUT', path, { token: srv.adminToken, body: at })).status).toBe(201);
    const r = await srv.request('PUT', path, { token: srv.adminToken, body: over });
    expect(r.status).toBe(400);
    expect(r.body.data.json.too_deep).toBeDefined();
  });

  it('a deep paging key is a 400, not a crash', async () => {
    const key = Buffer.from(deepArray(4000)).toString('base64url');
    const r = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/webhooks/attempts?start_key=${key}`, { token: srv.adminToken });
    expect(r.status).toBe(400);
    expect(r.body.data.start_key).toBeDefined();
  });
});

describe('the depth scan', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(jsonTooDeep('[[[1]]]', 3)).toBe(false);
    expect(jsonTooDeep('[[[[1]]]]', 3)).toBe(true);
    expect(jsonTooDeep(`{"a":"${'['.repeat(100)}"}`, 3)).toBe(false);
    expect(jsonTooDeep(`{"a":"\\"${'['.repeat(100)}"}`, 3)).toBe(false);
    expect(jsonTooDeep(Buffer.from(`{"é":"\\\\",${'['.repeat(5)}`), 3)).toBe(true);
    expect(jsonTooDeep('[[],[],[],[]]', 2)).toBe(false);
  });

  it('a large body of few brackets, and one of many shallow ones, are told apart from a deep one', () => {
    const numbers = JSON.stringify({ data: { numbers: Array.from({ length: 100_000 }, (_, i) => `+1415555${String(i).padStart(4, '0')}`) } });
    expect(jsonTooDeep(numbers)).toBe(false);
    expect(jsonTooDeep(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(false);
    expect(jsonTooDeep(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(true);
    // more brackets than the limit, none deep: the scan decides
    expect(jsonTooDeep(JSON.stringify(Array.from({ length: 1000 }, () => ({ a: [1] }))))).toBe(false);
    // bytes seen through a view that starts inside a larger buffer
    const inside = new Uint8Array(Buffer.from(`xx${'['.repeat(6)}`)).subarray(2);
    expect(jsonTooDeep(inside, 5)).toBe(true);
    expect(jsonTooDeep(inside, 6)).toBe(false);
  });

  it('a merge patch walks any depth without recursion, and leaves the target as it was', () => {
    const target = { a: { b: { c: 1, d: 2 }, keep: true }, gone: 1 };
    expect(mergePatch(target, { a: { b: { c: null, e: 3 } }, gone: null, list: [1] })).toEqual({
      a: { b: { d: 2, e: 3 }, keep: true },
      list: [1],
    });
    expect(target).toEqual({ a: { b: { c: 1, d: 2 }, keep: true }, gone: 1 });
    let deepTarget: Record<string, unknown> = { x: 1 };
    let deepPatch: Record<string, unknown> = { y: 2 };
    for (let i = 0; i < 100_000; i++) {
      deepTarget = { n: deepTarget };
      deepPatch = { n: deepPatch };
    }
    let merged = mergePatch(deepTarget, deepPatch);
    for (let i = 0; i < 100_000; i++) merged = merged.n as Record<string, unknown>;
    expect(merged).toEqual({ x: 1, y: 2 });
  });

  it('dropping nulls walks any depth without recursion', () => {
    let v: Record<string, unknown> = { gone: null, kept: 1 };
    const inner = v;
    for (let i = 0; i < 100_000; i++) v = { a: [v] };
    dropNulls(v);
    expect(inner).toEqual({ kept: 1 });
  });
});

describe('JSON given to the CLI', () => {
  it('is held to the same depth: exit 2, one sentence, nothing stored', async () => {
    const { runTel } = await import('../../test/helpers/cli.js');
    const { tempDir } = await import('../../test/helpers/server.js');
    const tmp = tempDir();
    try {
      const db = `${tmp.dir}/tel.db`;
      const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw']);
      const account = JSON.parse(init.stdout).account_id as string;
      const deep = `{"x":${deepArray(DEEP)}}`;
      const runs = [
        await runTel(['webhooks', 'create', '--db', db, '--account', account, '--name', 'h', '--uri', 'http://127.0.0.1:9/x', '--hook', 'channel_create', '--data', deep]),
        await runTel(['config', 'set', 'webhooks', 'x', deep, '--db', db]),
        await runTel(['resources', 'import', '-', '--db', db], { stdin: `[${deep}]` }),
      ];
      for (const r of runs) {
        expect(r.code).toBe(2);
        expect(r.stderr.trim()).toMatch(new RegExp(`nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep\\.$`));
      }
      expect(JSON.parse((await runTel(['webhooks', 'list', '--db', db, '--account', account, '--json'])).stdout)).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});

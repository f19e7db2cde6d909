import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { runTel } from '../../../test/helpers/cli.js';
import { readLab } from '../../lab/read.js';
import { MODULES } from '../index.js';
import { categoriesByName, categoryDefaults, checkConfigDoc } from './categories.js';

const declared = MODULES.flatMap((m) => m.configs ?? []);

describe('configuration categories, as the modules declare them', () => {
  it('each category is declared once, and every key says its type and meaning', () => {
    expect(() => categoriesByName(declared)).not.toThrow();
    expect(() => categoriesByName([...declared, declared[0]])).toThrow(/declared twice/);
    const vague = declared.flatMap((c) =>
      Object.entries(c.keys)
        .filter(([, k]) => !k.type || k.description.length < 20)
        .map(([key]) => `${c.name} ${key}`),
    );
    expect(vague).toEqual([]);
  });

  it("every built-in value passes its own key's check", () => {
    for (const c of declared) expect(checkConfigDoc(c, { id: c.name, default: categoryDefaults(c) }), c.name).toBeUndefined();
  });

  it('a lab file with a setting out of its bounds is refused before anything is applied', () => {
    let problems: unknown;
    try {
      readLab({ version: 1, system: { configs: { webhooks: { attempt_failure_count: 0 } } }, account: { name: 'Lab' } });
    } catch (err) {
      problems = (err as { problems?: unknown }).problems;
    }
    expect(JSON.stringify(problems)).toMatch(/system\.configs\.webhooks.*attempt_failure_count/);
  });
});

describe('system configuration checked against its declaration', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it('refuses a declared key of the wrong type or out of bounds, with Kazoo-shaped errors, and stores nothing', async () => {
    const r = await srv.request('POST', '/v2/system_configs/webhooks', {
      token: srv.adminToken,
      data: { default: { attempt_failure_count: 0, request_timeout_ms: 'soon' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.data['default.attempt_failure_count'].minimum).toMatchObject({ target: 1, value: 0 });
    expect(r.body.data['default.request_timeout_ms'].type).toMatchObject({ target: 'integer', value: 'soon' });
    expect((await srv.request('GET', '/v2/system_configs/webhooks', { token: srv.adminToken })).status).toBe(404);

    const peers = await srv.request('POST', '/v2/system_configs/api.resources', { token: srv.adminToken, data: { allow_peers: 'maybe' } });
    expect(peers.status).toBe(400);
    expect(Object.keys(peers.body.data)).toEqual(['default.allow_peers']);
  });

  it('checks every node, coerces string forms as Kazoo does, and keeps keys it does not declare', async () => {
    const other = await srv.request('POST', '/v2/system_configs/crossbar.auth', {
      token: srv.adminToken,
      data: { default: {}, 'kazoo_apps@lab': { token_expiry_s: -5 } },
    });
    expect(Object.keys(other.body.data)).toEqual(['kazoo_apps@lab.token_expiry_s']);
    const r = await srv.request('POST', '/v2/system_configs/crossbar.auth', {
      token: srv.adminToken,
      data: { default: { token_expiry_s: '600', not_ours: 'kept' } },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.default).toEqual({ token_expiry_s: 600, not_ours: 'kept' });
    const applied = await srv.request('GET', '/v2/system_configs/crossbar.auth?with_defaults=true', { token: srv.adminToken });
    expect(applied.body.data.default).toMatchObject({ token_expiry_s: 600, token_max_lifetime_s: 86400, not_ours: 'kept' });
  });

  it('the CLI refuses the same way (exit 1, the rule named) and shows every declared default', async () => {
    const bad = await runTel(['--db', srv.dbFile, 'config', 'set', 'acdc', 'notification_retries', '-1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/notification_retries/);
    const got = await runTel(['--db', srv.dbFile, 'config', 'get', 'api.resources']);
    expect(JSON.parse(got.stdout).default).toEqual({
      allow_peers: false,
      job_recover_threshold_s: 3600,
      job_recover_timeout_s: 21600,
      job_batch_size: 1000,
      job_batch_pause_ms: 0,
      job_poll_interval_ms: 1000,
    });
  });
});

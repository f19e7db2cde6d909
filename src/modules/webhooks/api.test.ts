import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('webhooks API: hook types, samples, account webhooks, delivery settings', () => {
  let srv: TestServer;
  let account: string;
  let base: string;
  let token: string;
  beforeAll(async () => {
    srv = await startTestServer();
    token = srv.adminToken;
    account = (await createSubAccount(srv, srv.master.account_id, 'Api Hooks')).id;
    base = `/v2/accounts/${account}/webhooks`;
  });
  afterAll(async () => srv.close());

  it('GET /v2/webhooks lists every hook type without a token; object has action/type/types modifiers', async () => {
    const r = await srv.request('GET', '/v2/webhooks');
    expect(r.status).toBe(200);
    const ids = r.body.data.map((t: { id: string }) => t.id);
    expect(ids).toEqual(['channel_create', 'channel_answer', 'channel_bridge', 'channel_destroy', 'object', 'sms', 'mms', 'parking', 'notifications']);
    expect(r.body.page_size).toBe(9);
    for (const t of r.body.data) expect(t).toEqual(expect.objectContaining({ id: expect.any(String), name: expect.any(String), description: expect.any(String) }));
    const object = r.body.data.find((t: { id: string }) => t.id === 'object');
    expect(Object.keys(object.modifiers).sort()).toEqual(['action', 'type', 'types']);
    expect(object.modifiers.action).toMatchObject({ type: 'array', items: ['all', 'doc_created', 'doc_edited', 'doc_deleted'] });
    expect(object.modifiers.type.items).toEqual(expect.arrayContaining(['account', 'callflow', 'device', 'faxbox', 'media', 'user', 'vmbox']));
  });

  it('samples: the seed ids, realistic payloads, filter_<field>, unknown id 404', async () => {
    const ids = await srv.request('GET', '/v2/webhooks/samples');
    expect(ids.body.data).toEqual([
      'webhooks_channel_answer',
      'webhooks_channel_bridge',
      'webhooks_channel_create',
      'webhooks_channel_destroy',
      'webhooks_mms',
      'webhooks_notifications',
      'webhooks_object',
      'webhooks_parking',
      'webhooks_sms',
    ]);
    for (const id of ids.body.data) {
      const s = await srv.request('GET', `/v2/webhooks/samples/${id}`);
      expect(s.status).toBe(200);
      expect(s.body.data.length).toBeGreaterThan(0);
      expect(s.body.page_size).toBe(s.body.data.length);
      expect(s.body.data[0].account_id).toMatch(/^[0-9a-f]{32}$/);
    }
    const destroy = await srv.request('GET', '/v2/webhooks/samples/webhooks_channel_destroy');
    expect(destroy.body.data[0]).toMatchObject({ hook_event: 'channel_destroy', hangup_cause: 'NORMAL_CLEARING', hangup_code: 'sip:200' });
    const parking = await srv.request('GET', '/v2/webhooks/samples/webhooks_parking');
    expect(parking.body.data[0]).toMatchObject({ event_name: 'PARK_PARKED', parking_slot: expect.any(Number), caller_id_number: expect.any(String) });
    const created = await srv.request('GET', '/v2/webhooks/samples/webhooks_object?filter_action=doc_created');
    expect(created.body.data).toEqual([expect.objectContaining({ action: 'doc_created', type: 'user' })]);
    const missed = await srv.request('GET', '/v2/webhooks/samples/webhooks_notifications?filter_event_name=missed_call');
    expect(missed.body.data).toHaveLength(1);
    const unknown = await srv.request('GET', '/v2/webhooks/samples/webhooks_nope');
    expect(unknown.status).toBe(404);
    // names every JavaScript object has are unknown sample ids too, not a crash
    for (const id of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const r = await srv.request('GET', `/v2/webhooks/samples/${id}`);
      expect(r.status, id).toBe(404);
      expect(r.body.data.cause, id).toBe(id);
    }
    const byProto = await srv.request('GET', '/v2/webhooks/samples/webhooks_object?filter_constructor=x');
    expect(byProto.body.data).toEqual([]);
    const viaAccount = await srv.request('GET', `${base}/samples/webhooks_parking`, { token });
    expect(viaAccount.body.data).toEqual(parking.body.data);
    expect((await srv.request('GET', `${base}/samples`)).status).toBe(401);
  });

  it('create fills every default of the seed table and answers 201', async () => {
    const r = await srv.request('PUT', base, { token, data: { name: 'Defaults', uri: 'http://127.0.0.1:9/x', hook: 'channel_create' } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      name: 'Defaults',
      uri: 'http://127.0.0.1:9/x',
      hook: 'channel_create',
      http_verb: 'post',
      format: 'form-data',
      retries: 2,
      enabled: true,
      include_subaccounts: false,
      include_internal_legs: true,
    });
    expect(r.body.data.id).toMatch(/^[0-9a-f]{32}$/);
    const get = await srv.request('GET', `${base}/${r.body.data.id}`, { token });
    expect(get.body.data).toEqual(r.body.data);
    expect(get.body.data).not.toHaveProperty('disable_reason');
  });

  it.each([
    ['missing name, uri and hook', {}, ['name.required', 'uri.required', 'hook.required']],
    ['an unknown hook id', { hook: 'channel_explode' }, ['hook.enum']],
    ['an unknown http_verb', { http_verb: 'delete' }, ['http_verb.enum']],
    ['an unknown format', { format: 'xml' }, ['format.enum']],
    ['a relative uri', { uri: '/just/a/path' }, ['uri.error']],
    ['a non-http uri', { uri: 'ftp://example.com/x' }, ['uri.error']],
    ['a name that is not a string', { name: 42 }, ['name.type']],
    ['custom data that is not a string', { custom_data: { team: { name: 'blue' } } }, ['custom_data.team.type']],
    ['retries above the range', { retries: 9 }, ['retries.maximum']],
    ['negative retries', { retries: -1 }, ['retries.minimum']],
    ['an unknown object action', { hook: 'object', custom_data: { action: 'doc_exploded' } }, ['custom_data.action.enum']],
    ['an unknown object type in types', { hook: 'object', modifiers: { types: ['device', 'spaceship'] } }, ['modifiers.types.enum']],
    ['a secret that is not base64 of 24..64 bytes', { secret: 'short' }, ['secret.invalid']],
  ])('refuses %s with a Kazoo-shaped 400', async (_what, override, expected) => {
    const data = { name: 'Bad', uri: 'https://example.com/hook', hook: 'channel_create', ...override };
    for (const k of Object.keys(override)) if ((override as Record<string, unknown>)[k] === undefined) delete (data as Record<string, unknown>)[k];
    const body = Object.keys(override).length === 0 ? {} : data;
    const r = await srv.request('PUT', base, { token, data: body });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('validation error');
    for (const path of expected) {
      const [rule, ...field] = path.split('.').reverse();
      expect(r.body.data[field.reverse().join('.')]?.[rule], `${path} in ${JSON.stringify(r.body.data)}`).toBeTruthy();
    }
  });

  it('coerces string forms ("3", "true") as Kazoo clients send them', async () => {
    const r = await srv.request('PUT', base, {
      token,
      data: { name: 'Strings', uri: 'https://example.com/h', hook: 'parking', retries: '3', include_subaccounts: 'true' },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ retries: 3, include_subaccounts: true });
  });

  it('takes a format on a get hook and keeps it, as Kazoo does (a get sends a query string whatever it says)', async () => {
    const r = await srv.request('PUT', base, { token, data: { name: 'Get', uri: 'https://example.com/g', hook: 'parking', http_verb: 'get', format: 'json' } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ http_verb: 'get', format: 'json' });
    const dflt = await srv.request('PUT', base, { token, data: { name: 'Get 2', uri: 'https://example.com/g', hook: 'parking', http_verb: 'get' } });
    expect(dflt.body.data.format).toBe('form-data');
  });

  it('full edit, PATCH enabled, unknown fields kept on a round trip, listing summaries, delete', async () => {
    const c = await srv.request('PUT', base, { token, data: { name: 'Edit me', uri: 'https://example.com/a', hook: 'object', group: 'ops' } });
    const id = c.body.data.id;
    const got = await srv.request('GET', `${base}/${id}`, { token });
    const edited = await srv.request('POST', `${base}/${id}`, {
      token,
      // the whole document back, with the form-data default tel filled in, and the verb changed to get
      data: { ...got.body.data, name: 'Edited', http_verb: 'get', _read_only: { x: 1 }, ui_metadata: { version: '4.3', ui: 'monster-ui', origin: 'webhooks' } },
    });
    expect(got.body.data.format).toBe('form-data');
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({ name: 'Edited', http_verb: 'get', format: 'form-data', group: 'ops', id, ui_metadata: { ui: 'monster-ui' } });
    expect(edited.body.data).not.toHaveProperty('_read_only');
    const patched = await srv.request('PATCH', `${base}/${id}`, { token, data: { enabled: false } });
    expect(patched.body.data).toMatchObject({ enabled: false, name: 'Edited' });
    const list = await srv.request('GET', base, { token });
    const row = list.body.data.find((h: { id: string }) => h.id === id);
    expect(row).toEqual({ id, hook: 'object', name: 'Edited', uri: 'https://example.com/a', enabled: false, group: 'ops' });
    const stale = await srv.request('POST', `${base}/${id}`, { token, data: got.body.data, headers: { 'If-Match': got.body.revision } });
    expect(stale.status).toBe(412);
    const del = await srv.request('DELETE', `${base}/${id}`, { token });
    expect(del.body.data).toMatchObject({ id, _read_only: { deleted: true } });
    expect((await srv.request('GET', `${base}/${id}`, { token })).status).toBe(404);
    expect((await srv.request('GET', `${base}/${id}/attempts`, { token })).status).toBe(404);
  });

  it('another account cannot see or change these hooks', async () => {
    const other = await createSubAccount(srv, srv.master.account_id, 'Stranger');
    const otherToken = await srv.apiLogin(other.apiKey);
    expect((await srv.request('GET', base, { token: otherToken })).status).toBe(403);
    expect((await srv.request('PUT', base, { token: otherToken, data: { name: 'x', uri: 'https://e.com', hook: 'object' } })).status).toBe(403);
  });

  it('configs/webhooks: merged settings, overrides stored as the difference, PATCH, DELETE back to inherited', async () => {
    const path = `/v2/accounts/${account}/configs/webhooks`;
    const initial = await srv.request('GET', path, { token });
    expect(initial.body.data).toMatchObject({
      id: 'configs_webhooks',
      attempt_failure_count: 6,
      attempt_failure_expiry_ms: 60000,
      request_timeout_ms: 10000,
      retry_base_delay_ms: 1000,
      retry_max_delay_ms: 60000,
      attempts_retention_s: 604800,
    });
    await srv.request('POST', '/v2/system_configs/webhooks', { token, data: { default: { attempt_failure_count: 4 } } });
    expect((await srv.request('GET', path, { token })).body.data.attempt_failure_count).toBe(4);
    const put = await srv.request('PUT', path, { token, data: { attempt_failure_count: '3', attempt_failure_expiry_ms: 60000 } });
    expect(put.status).toBe(201);
    expect(put.body.data).toMatchObject({ attempt_failure_count: 3, attempt_failure_expiry_ms: 60000 });
    const patched = await srv.request('PATCH', path, { token, data: { request_timeout_ms: 2500 } });
    expect(patched.body.data).toMatchObject({ attempt_failure_count: 3, request_timeout_ms: 2500 });
    const bad = await srv.request('POST', path, { token, data: { attempt_failure_count: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.data.attempt_failure_count.minimum).toBeTruthy();
    const reset = await srv.request('DELETE', path, { token });
    expect(reset.body.data).toMatchObject({ attempt_failure_count: 4, request_timeout_ms: 10000 });
    await srv.request('DELETE', '/v2/system_configs/webhooks', { token });
  });

  it('bulk re-enable needs re-enable: true (400 when missing or false)', async () => {
    const missing = await srv.request('PATCH', base, { token, data: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.data['re-enable'].required.message).toBe('re-enable is required to patch collections');
    const no = await srv.request('PATCH', base, { token, data: { 're-enable': false } });
    expect(no.status).toBe(400);
    expect(no.body.data['re-enable'].enum.target).toEqual([true]);
    const yes = await srv.request('PATCH', `/v2/accounts/${account}/descendants/webhooks`, { token, data: { 're-enable': true } });
    expect(yes.status).toBe(200);
    expect(yes.body.data).toBe('hooks updated');
  });
  it('a hook stored by an earlier tel with retries 5 or a pace under 0.01/s is read as the bound: answered, used by its deliveries, and a PATCH not sending them is taken', async () => {
    const made = await srv.request('PUT', base, { token, data: { name: 'Old', uri: 'http://127.0.0.1:9/old', hook: 'object' } });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data.id;
    srv.core.db.prepare("UPDATE webhooks SET doc = json_set(doc, '$.retries', 5, '$.rate_limit_per_s', 1e-7), rev = '9-older' WHERE id = ?").run(id);
    const seen = await srv.request('GET', `${base}/${id}`, { token });
    expect(seen.body.data).toMatchObject({ retries: 4, rate_limit_per_s: 0.01 });
    // an event of the account: the hook's delivery is queued with the bounds
    expect((await srv.request('PUT', `/v2/accounts/${account}/devices`, { token, data: { name: 'Fires the hook' } })).status).toBe(201);
    const queued = srv.core.db.prepare('SELECT retries, rate_per_s FROM outbox WHERE source_id = ?').all(id);
    expect(queued).toEqual([{ retries: 4, rate_per_s: 0.01 }]);
    const patched = await srv.request('PATCH', `${base}/${id}`, { token, data: { name: 'Old, renamed' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'Old, renamed', retries: 4, rate_limit_per_s: 0.01 });
    const stored = srv.core.db.prepare("SELECT json_extract(doc, '$.retries') AS retries FROM webhooks WHERE id = ?").get(id);
    expect(stored).toEqual({ retries: 4 });
    // a client that sends the value beyond the bound is refused
    const sent = await srv.request('PATCH', `${base}/${id}`, { token, data: { retries: 5 } });
    expect(sent.status).toBe(400);
    expect(sent.body.data.retries.maximum).toBeDefined();
  });
});

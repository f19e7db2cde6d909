import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';

/** One of Kazoo's plain document modules, as its CRUD is checked: what to send, what comes back. */
interface KindCase {
  endpoint: string;
  /** the least a valid document holds */
  minimal: Record<string, unknown>;
  /** Kazoo's defaults the answer to `minimal` carries */
  defaults: Record<string, unknown>;
  /** the listing row of `minimal` (besides `id`) */
  row: Record<string, unknown>;
  /** a document Kazoo's schema refuses, and the field and rule it names */
  broken: Record<string, unknown>;
  refused: [string, string];
  /** a PATCH and what it leaves */
  patch: Record<string, unknown>;
}

const CASES: KindCase[] = [
  {
    endpoint: 'blacklists',
    minimal: { name: 'Spam' },
    defaults: { numbers: {} },
    row: { name: 'Spam', flags: [] },
    broken: { name: 'Spam', should_block_anonymous: 'often' },
    refused: ['should_block_anonymous', 'type'],
    patch: { should_block_anonymous: true },
  },
  {
    endpoint: 'groups',
    minimal: { name: 'Sales' },
    defaults: { endpoints: {}, music_on_hold: {} },
    row: { name: 'Sales', features: [], endpoints: 0, flags: [] },
    broken: { name: 'x'.repeat(129) },
    refused: ['name', 'maxLength'],
    patch: { flags: ['vip'] },
  },
  {
    endpoint: 'menus',
    minimal: { name: 'Main IVR' },
    defaults: { retries: 3, max_extension_length: 4, hunt: true, allow_record_from_offnet: false, suppress_media: false, media: {} },
    row: { name: 'Main IVR', flags: [] },
    broken: { name: 'Main IVR', retries: 11 },
    refused: ['retries', 'maximum'],
    patch: { timeout: 5000 },
  },
  {
    endpoint: 'temporal_rules',
    minimal: { name: 'Weekdays', cycle: 'weekly' },
    defaults: { interval: 1, start_date: 62586115200 },
    row: { name: 'Weekdays', flags: [] },
    broken: { name: 'Weekdays', cycle: 'hourly' },
    refused: ['cycle', 'enum'],
    patch: { wdays: ['monday', 'friday'] },
  },
  {
    endpoint: 'temporal_rules_sets',
    minimal: { name: 'Office hours' },
    defaults: {},
    row: { name: 'Office hours', flags: [] },
    broken: { name: 'Office hours', temporal_rules: [] },
    refused: ['temporal_rules', 'minItems'],
    patch: { temporal_rules: ['0123456789abcdef0123456789abcdef'] },
  },
  {
    endpoint: 'directories',
    minimal: { name: 'Company' },
    defaults: { confirm_match: true, max_dtmf: 0, min_dtmf: 3, sort_by: 'last_name', users: [] },
    row: { name: 'Company', flags: [] },
    broken: { name: 'Company', sort_by: 'age' },
    refused: ['sort_by', 'enum'],
    patch: { min_dtmf: 2 },
  },
  {
    endpoint: 'conferences',
    minimal: { name: 'Standup' },
    defaults: { conference_numbers: [], member: { join_deaf: false, join_muted: true, numbers: [], pins: [] }, play_name: false },
    row: {
      name: 'Standup',
      member: { join_deaf: false, join_muted: true, numbers: [], pins: [] },
      moderator: { join_deaf: false, join_muted: false, numbers: [], pins: [] },
      conference_numbers: [],
      flags: [],
      _read_only: { members: 0, moderators: 0, duration: 0, is_locked: false },
    },
    broken: { name: 'Standup', conference_numbers: ['12a'] },
    refused: ['conference_numbers.0', 'pattern'],
    patch: { max_participants: 10 },
  },
  {
    endpoint: 'lists',
    minimal: { name: 'VIPs' },
    defaults: {},
    row: { name: 'VIPs' },
    broken: { org: 'Acme' },
    refused: ['name', 'required'],
    patch: { org: 'Acme' },
  },
  {
    endpoint: 'clicktocall',
    minimal: { name: 'Call us', extension: '1000' },
    defaults: { auth_required: true, custom_application_vars: {} },
    row: { name: 'Call us', extension: '1000' },
    broken: { name: 'Call us', extension: '1000', dial_first: 'nobody' },
    refused: ['dial_first', 'enum'],
    patch: { timeout: 20 },
  },
];

describe("Kazoo's plain document modules", () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  const path = (endpoint: string, id?: string) => `/v2/accounts/${account}/${endpoint}${id ? `/${id}` : ''}`;

  beforeAll(async () => {
    srv = await startTestServer();
    const a = await createSubAccount(srv, srv.master.account_id, 'Documents');
    account = a.id;
    token = await srv.apiLogin(a.apiKey);
  });
  afterAll(() => srv?.close());

  it.each(CASES)('$endpoint: create with defaults, list as Kazoo rows, read, refuse, patch, replace, delete', async (c) => {
    const made = await srv.request('PUT', path(c.endpoint), { token, data: c.minimal });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data.id;
    expect(made.body.data).toMatchObject({ ...c.minimal, ...c.defaults });
    const list = await srv.request('GET', path(c.endpoint), { token });
    expect(list.body.data).toEqual([{ id, ...c.row }]);
    const read = await srv.request('GET', path(c.endpoint, id), { token });
    expect(read.status).toBe(200);
    expect(read.body.revision).toEqual(expect.any(String));
    const bad = await srv.request('PUT', path(c.endpoint), { token, data: c.broken });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.data[c.refused[0]]?.[c.refused[1]], bad.text).toBeDefined();
    const patched = await srv.request('PATCH', path(c.endpoint, id), { token, data: c.patch });
    expect(patched.body.data).toMatchObject({ ...c.minimal, ...c.patch });
    const replaced = await srv.request('POST', path(c.endpoint, id), { token, data: c.minimal });
    expect(replaced.status).toBe(200);
    for (const k of Object.keys(c.patch)) expect(replaced.body.data[k]).toEqual(c.defaults[k]);
    const gone = await srv.request('DELETE', path(c.endpoint, id), { token });
    expect(gone.body.data).toMatchObject({ id, _read_only: { deleted: true } });
    expect((await srv.request('GET', path(c.endpoint, id), { token })).status).toBe(404);
  });

  it("fire no `object` events (Kazoo's object hooks are of accounts, users, devices, callflows, vmboxes, faxboxes, media…); an account's settings fire the account's", async () => {
    const seen: unknown[] = [];
    const stop = srv.core.bus.subscribe((e) => e.type === 'object' && seen.push(e.payload));
    try {
      for (const c of CASES) expect((await srv.request('PUT', path(c.endpoint), { token, data: c.minimal })).status).toBe(201);
      expect(seen).toEqual([]);
      await srv.request('POST', path('metaflows'), { token, data: { binding_digit: '#' } });
      expect(seen).toEqual([{ id: account, account_id: account, action: 'doc_edited', type: 'account' }]);
    } finally {
      stop();
    }
  });

  it('names refuse control characters, as every name of tel', async () => {
    for (const c of CASES) {
      const r = await srv.request('PUT', path(c.endpoint), { token, data: { ...c.minimal, name: 'evil\u001b[2J' } });
      expect(r.status, c.endpoint).toBe(400);
      expect(r.body.data.name, c.endpoint).toBeDefined();
    }
  });

  it("a blacklist's numbers are stored as Kazoo normalises them", async () => {
    const r = await srv.request('PUT', path('blacklists'), { token, data: { name: 'Robocalls', numbers: { '4155550100': {}, '+442071234567': {} } } });
    expect(Object.keys(r.body.data.numbers).sort()).toEqual(['+14155550100', '+442071234567']);
  });

  it("a group's row counts its endpoints and names its features", async () => {
    const r = await srv.request('PUT', path('groups'), {
      token,
      data: { name: 'Support', endpoints: { a: { type: 'user' }, b: { type: 'device' } }, music_on_hold: { media_id: 'moh' }, smartpbx: { forward: { enabled: true }, off: { enabled: false } } },
    });
    const rows = (await srv.request('GET', path('groups'), { token })).body.data;
    expect(rows.find((g: { id: string }) => g.id === r.body.data.id)).toEqual({
      id: r.body.data.id,
      name: 'Support',
      features: ['forward', 'music_on_hold'],
      endpoints: 2,
      flags: [],
    });
  });

  it("a conference's numbers reach no other conference of the account; nothing runs in it, nobody is in it", async () => {
    const first = await srv.request('PUT', path('conferences'), { token, data: { name: 'A', conference_numbers: ['7001'], member: { numbers: ['7002'] } } });
    expect(first.status).toBe(201);
    const clash = await srv.request('PUT', path('conferences'), { token, data: { name: 'B', moderator: { numbers: ['7002', '7003'] }, conference_numbers: ['7001'] } });
    expect(clash.status).toBe(400);
    expect(clash.body.data.numbers.unique).toEqual({ message: 'Numbers already in use', cause: '7001, 7002' });
    // its own numbers are not a clash when it changes
    const id = first.body.data.id;
    expect((await srv.request('PATCH', path('conferences', id), { token, data: { max_participants: 5 } })).status).toBe(200);
    const read = await srv.request('GET', path('conferences', id), { token });
    expect(read.body.data._read_only).toEqual({ members: 0, moderators: 0, duration: 0, is_locked: false, participants: [] });
    expect((await srv.request('GET', `${path('conferences', id)}/participants`, { token })).body.data).toEqual([]);
    expect((await srv.request('GET', `${path('conferences', id)}/participants/3`, { token })).body.data).toEqual({});
    expect((await srv.request('GET', `${path('conferences', 'f'.repeat(32))}/participants`, { token })).status).toBe(404);
  });

  it("a directory's GET lists the users whose `directories` name it, with the callflow that reaches each", async () => {
    const dir = (await srv.request('PUT', path('directories'), { token, data: { name: 'Staff', users: ['ignored'] } })).body.data.id;
    const user = async (first: string, directories: Record<string, unknown>) =>
      (await srv.request('PUT', path('users'), { token, data: { first_name: first, last_name: 'Doe', directories } })).body.data.id;
    const ann = await user('Ann', { [dir]: 'cf-ann' });
    const bob = await user('Bob', { [dir]: '', other: 'cf-x' });
    await user('Cid', { other: 'cf-y' });
    const read = await srv.request('GET', path('directories', dir), { token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.users).toEqual(
      [
        { user_id: ann, callflow_id: 'cf-ann' },
        { user_id: bob },
      ].sort((a, b) => a.user_id.localeCompare(b.user_id)),
    );
    // a user leaving the directory leaves its listing
    await srv.request('PATCH', path('users', ann), { token, data: { directories: null } });
    expect((await srv.request('GET', path('directories', dir), { token })).body.data.users).toEqual([{ user_id: bob }]);
  });
});

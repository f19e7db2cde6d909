import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from './helpers/server.js';
import { recordAttempt } from '../src/delivery/attempts.js';
import { enqueueDelivery, findDelivery } from '../src/delivery/outbox.js';
import { recordPush } from '../src/modules/push/pushes.js';
import { findSubscription } from '../src/modules/push/service.js';
import { addApp } from '../src/modules/apps-store/service.js';
import { runTel } from './helpers/cli.js';

// Kazoo applies crossbar_filter to every listing (crossbar_view:build_load_params/3 builds the
// filter into the view's mapper; modules that list files or lists of their own call
// crossbar_filter:by_doc/3): one table, a row per listing kind tel serves. Each row seeds three
// items of its listing, the first and last of which have a field the filter asks for.

interface Seeded {
  /** the listing's path (relative to /v2) */
  path: string;
  /** the filter that keeps the first and last seeded items only */
  keep: string;
  /** the seeded items' ids, in listing order */
  ids: [string, string, string];
}

interface Kind {
  name: string;
  seed(): Promise<Seeded>;
  /** the ids of a listing's answer (default: `data[].id`) */
  idsOf?(data: any): string[];
  /** a listing kept in memory (not paged in SQL): only the filter itself is checked */
  unpaged?: boolean;
}

describe('filters on every listing kind (crossbar_filter.erl)', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  const put = async (path: string, data: unknown, as = token) => {
    const r = await srv.request('PUT', `/v2/${path}`, { token: as, data });
    if (r.status !== 201) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
    return r.body.data.id as string;
  };
  const get = async (path: string, qs: string) => {
    const r = await srv.request('GET', `/v2/${path}${path.includes('?') ? '&' : '?'}${qs}`, { token });
    if (r.status !== 200) throw new Error(`GET ${path}?${qs}: ${r.status} ${r.text}`);
    return r.body;
  };
  /** Three documents of a kind, the first and last with `custom.tag` = keep. */
  const threeDocs = (endpoint: string, doc: (i: number) => Record<string, unknown>) => async (): Promise<Seeded> => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await put(`accounts/${account}/${endpoint}`, { ...doc(i), custom: { tag: i === 1 ? 'drop' : 'keep' } }));
    return { path: `accounts/${account}/${endpoint}`, keep: 'filter_custom.tag=keep', ids: ids as Seeded['ids'] };
  };

  /** Three accounts under a new parent, the first and last with `custom.tag` = keep, listed at `listing` (below `accounts/`). */
  const threeAccounts = (name: string, listing: (parent: string, ids: string[]) => string) => async (): Promise<Seeded> => {
    const parent = (await createSubAccount(srv, account, `Parent of ${name}`)).id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await put(`accounts/${parent}`, { name: `${name} ${i}`, custom: { tag: i === 1 ? 'drop' : 'keep' } }));
    return { path: `accounts/${listing(parent, ids)}`, keep: 'filter_custom.tag=keep', ids: ids as Seeded['ids'] };
  };

  beforeAll(async () => {
    srv = await startTestServer();
    token = srv.adminToken;
    account = (await createSubAccount(srv, srv.master.account_id, 'Filters Co')).id;
  });
  afterAll(async () => {
    await srv.close();
  });

  const kinds: Kind[] = [
    { name: 'devices', seed: threeDocs('devices', (i) => ({ name: `Phone ${i}` })) },
    { name: 'callflows', seed: threeDocs('callflows', (i) => ({ name: `Flow ${i}`, numbers: [`10${i}`], flow: { module: 'park', data: {} } })) },
    { name: 'vmboxes', seed: threeDocs('vmboxes', (i) => ({ name: `Box ${i}`, mailbox: `20${i}` })) },
    { name: 'faxboxes', seed: threeDocs('faxboxes', (i) => ({ name: `Fax ${i}` })) },
    { name: 'media', seed: threeDocs('media', (i) => ({ name: `Prompt ${i}` })) },
    { name: 'queues', seed: threeDocs('queues', (i) => ({ name: `Queue ${i}` })) },
    { name: 'resources (an account’s)', seed: threeDocs('resources', (i) => ({ name: `Carrier ${i}`, gateways: [{ server: `gw${i}.example.com` }] })) },
    {
      name: 'users: filter_priv_level=admin, the SDK’s own example',
      async seed() {
        const ids: string[] = [];
        for (const [i, level] of ['admin', 'user', 'admin'].entries()) {
          ids.push(await put(`accounts/${account}/users`, { username: `filter-user-${i}`, first_name: 'F', last_name: `U${i}`, priv_level: level }));
        }
        return { path: `accounts/${account}/users`, keep: 'filter_priv_level=admin', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'resource_templates',
      async seed() {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push(await put(`accounts/${srv.master.account_id}/resource_templates`, { name: `Template ${i}`, template_name: `t${i}`, custom: { tag: i === 1 ? 'drop' : 'keep' } }));
        return { path: `accounts/${srv.master.account_id}/resource_templates`, keep: 'filter_custom.tag=keep', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'global resources',
      async seed() {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push(await put('resources', { name: `Global ${i}`, weight_cost: i === 1 ? 10 : 70, gateways: [{ server: `g${i}.example.com` }] }));
        return { path: 'resources', keep: 'filter_weight_cost=70', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'webhooks',
      async seed() {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          ids.push(await put(`accounts/${account}/webhooks`, { name: `Hook ${i}`, uri: `http://127.0.0.1:9/h${i}`, hook: i === 1 ? 'channel_answer' : 'channel_create' }));
        }
        return { path: `accounts/${account}/webhooks`, keep: 'filter_hook=channel_create', ids: ids as Seeded['ids'] };
      },
    },
    { name: 'account children, by the account document', seed: threeAccounts('Child', (parent) => `${parent}/children`) },
    { name: 'account descendants', seed: threeAccounts('Descendant', (parent) => `${parent}/descendants`) },
    { name: 'account siblings', seed: threeAccounts('Sibling', (_parent, ids) => `${ids[0]}/siblings`) },
    {
      name: 'account parents (the ancestors)',
      async seed() {
        const ids: string[] = [];
        let at = account;
        for (let i = 0; i < 3; i++) ids.push((at = await put(`accounts/${at}`, { name: `Level ${i}`, custom: { tag: i === 1 ? 'drop' : 'keep' } })));
        const leaf = await put(`accounts/${at}`, { name: 'Leaf' });
        return { path: `accounts/${leaf}/parents`, keep: 'filter_custom.tag=keep', ids: ids as Seeded['ids'] };
      },
      // root first: the seeded three come after the master and the account
      idsOf: (data) => data.map((r: any) => r.id),
    },
    {
      name: 'a list’s entries',
      async seed() {
        const list = await put(`accounts/${account}/lists`, { name: 'Filtered list' });
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push(await put(`accounts/${account}/lists/${list}/entries`, { number: `+1415555010${i}`, custom: { tag: i === 1 ? 'drop' : 'keep' } }));
        return { path: `accounts/${account}/lists/${list}/entries`, keep: 'filter_custom.tag=keep', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'agents (the users with queues), by the user document',
      async seed() {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          ids.push(await put(`accounts/${account}/users`, { username: `agent-${i}`, first_name: 'A', last_name: `G${i}`, queues: [], custom: { tag: i === 1 ? 'drop' : 'keep' } }));
        }
        return { path: `accounts/${account}/agents`, keep: 'filter_custom.tag=keep', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'resource selectors, by the selector document',
      async seed() {
        const ids = ['sel-a', 'sel-b', 'sel-c'];
        for (const [i, id] of ids.entries()) {
          const r = await srv.request('POST', `/v2/accounts/${account}/resource_selectors/${id}`, { token, data: { name: 'lcr', resource: 'carrier', selector: `s${i}`, value: i === 1 ? 'drop' : 'keep' } });
          if (r.status >= 300) throw new Error(`${id}: ${r.status} ${r.text}`);
        }
        return { path: `accounts/${account}/resource_selectors/name/lcr/resource/carrier`, keep: 'filter_value=keep', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'a voicemail box’s messages (the filter a JSON list, as their order is the simulation’s)',
      async seed() {
        const vmbox = await put(`accounts/${account}/vmboxes`, { name: 'Filtered box', mailbox: '3999' });
        for (const caller of ['+14155550301', '+14155550302', '+14155550303']) {
          const r = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'voicemail', vmbox_id: vmbox, caller_id_number: caller } });
          if (r.status !== 201) throw new Error(`voicemail: ${r.status} ${r.text}`);
        }
        const path = `accounts/${account}/vmboxes/${vmbox}/messages`;
        const rows = (await get(path, 'paginate=false')).data;
        const keep = `filter_caller_id_number=${encodeURIComponent(JSON.stringify([rows[0].caller_id_number, rows[2].caller_id_number]))}`;
        return { path, keep, ids: rows.map((r: any) => r.media_id) };
      },
      idsOf: (data) => data.map((r: any) => r.media_id),
    },
    {
      name: 'registrations',
      async seed() {
        for (const [i, name] of ['reg-a', 'reg-b', 'reg-c'].entries()) {
          const d = await put(`accounts/${account}/devices`, { name, sip: { username: name, password: 'Secret-sip-1' } });
          const r = await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'registration', device_id: d, network_ip: `198.51.100.${i === 1 ? 2 : 1}` } });
          if (r.status !== 201) throw new Error(`registration: ${r.status} ${r.text}`);
        }
        return { path: `accounts/${account}/registrations`, keep: 'filter_network_ip=198.51.100.1', ids: ['reg-a', 'reg-b', 'reg-c'] };
      },
      idsOf: (data) => data.map((r: any) => r.username),
    },
    {
      name: 'webhook attempts (and the time bounds)',
      async seed() {
        const hook = await put(`accounts/${account}/webhooks`, { name: 'Attempted', uri: 'http://127.0.0.1:9/a', hook: 'channel_create' });
        const ids = attempts('webhook', account, hook, [200, 503, 200]);
        return { path: `accounts/${account}/webhooks/${hook}/attempts`, keep: 'filter_result=success', ids };
      },
    },
    {
      name: 'queue notification attempts',
      async seed() {
        const queue = await put(`accounts/${account}/queues`, { name: 'Notified' });
        const ids = attempts('queue', account, queue, [200, 503, 200]);
        return { path: `accounts/${account}/queues/${queue}/notifications`, keep: 'filter_result=success', ids };
      },
    },
    {
      name: 'resource jobs',
      async seed() {
        const resource = await put(`accounts/${account}/resources`, { name: 'Job carrier', gateways: [{ server: 'jobs.example.com' }] });
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push(await put(`accounts/${account}/resources/jobs`, { resource_id: resource, name: i === 1 ? 'drop' : 'keep', numbers: [`+1415555${i}000`] }));
        // newest first
        return { path: `accounts/${account}/resources/jobs`, keep: 'filter_name=keep', ids: ids.reverse() as Seeded['ids'] };
      },
    },
    {
      name: 'push notification subscriptions',
      async seed() {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const device = await put(`accounts/${account}/devices`, { name: `Mobile ${i}` });
          const r = await srv.request('PUT', `/v2/accounts/${account}/push_notification_subscriptions/app/${device}`, {
            token,
            data: { mobile_device_id: `m${i}`, notification_registration_id: `t${i}`, notification_type: i === 1 ? 'apns' : 'fcm' },
          });
          ids.push(r.body.data.id);
        }
        return { path: `accounts/${account}/push_notification_subscriptions`, keep: 'filter_notification_type=fcm', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'the push outbox',
      async seed() {
        const device = await put(`accounts/${account}/devices`, { name: 'Pushed' });
        await srv.request('PUT', `/v2/accounts/${account}/push_notification_subscriptions/outbox/${device}`, {
          token,
          data: { mobile_device_id: 'mo', notification_registration_id: 'to', notification_type: 'fcm' },
        });
        const sub = findSubscription(srv.core, account, 'outbox', device)!;
        const ids = [0, 1, 2].map((i) => String(recordPush(srv.core, sub, 'new_voicemail', { title: i === 1 ? 'drop' : 'keep', body: `m${i}`, data: {} }).id));
        // newest first
        return { path: `accounts/${account}/push_notifications`, keep: 'filter_title=keep', ids: ids.reverse() as Seeded['ids'] };
      },
    },
    {
      name: 'phone numbers (data.numbers keyed by number; filter_state as Kazoo renames it)',
      async seed() {
        const numbers = ['+14155550001', '+14155550002', '+14155550003'];
        const insert = srv.core.db.prepare('INSERT INTO phone_numbers (number, account_id, state, created, modified) VALUES (?, ?, ?, ?, ?)');
        numbers.forEach((n, i) => insert.run(n, account, i === 1 ? 'reserved' : 'in_service', Date.now(), Date.now()));
        return { path: `accounts/${account}/phone_numbers`, keep: 'filter_state=in_service', ids: numbers as Seeded['ids'] };
      },
      idsOf: (data) => Object.keys(data.numbers),
    },
    {
      name: 'alerts',
      async seed() {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          ids.push(
            await put(`accounts/${srv.master.account_id}/alerts`, {
              title: `Alert ${i}`,
              message: 'm',
              from: [{ type: 'account', value: srv.master.account_id }],
              to: [{ type: account, value: 'all' }],
              level: i === 1 ? 'info' : 'critical',
            }),
          );
        }
        return { path: `accounts/${account}/alerts`, keep: 'filter_level=critical', ids: ids.reverse() as Seeded['ids'] };
      },
    },
    {
      name: 'apps store',
      unpaged: true,
      async seed() {
        const ids = [0, 1, 2].map((i) => addApp(srv.core, { name: `app-${i}`, i18n: { 'en-US': { label: `App ${i}` } }, tags: [i === 1 ? 'drop' : 'keep'] }).id);
        return { path: `accounts/${account}/apps_store`, keep: 'filter_tags=keep', ids: ids as Seeded['ids'] };
      },
    },
    {
      name: 'hook types (GET /v2/webhooks)',
      unpaged: true,
      async seed() {
        return { path: 'webhooks', keep: 'filter_id=["channel_create","channel_destroy"]', ids: ['channel_create', 'channel_answer', 'channel_destroy'] };
      },
    },
    {
      name: 'webhook samples',
      unpaged: true,
      async seed() {
        return { path: 'webhooks/samples/webhooks_channel_create', keep: 'has_key=call_direction&filter_not_call_direction=', ids: [] as never };
      },
      idsOf: (data) => data.map((s: any) => s.call_id),
    },
    {
      name: 'system configs, by each category’s document',
      unpaged: true,
      async seed() {
        for (const [c, v] of [['lab.a', 'keep'], ['lab.b', 'drop'], ['lab.c', 'keep']]) {
          const r = await srv.request('POST', `/v2/system_configs/${c}`, { token, data: { default: { tag: v } } });
          if (r.status !== 200) throw new Error(`${c}: ${r.status} ${r.text}`);
        }
        return { path: 'system_configs', keep: 'filter_default.tag=keep', ids: ['lab.a', 'lab.b', 'lab.c'] };
      },
      idsOf: (data) => data,
    },
  ];

  /** Three attempts of one source, their HTTP statuses as given; their ids, newest first. */
  function attempts(kind: 'webhook' | 'queue', accountId: string, sourceId: string, statuses: number[]): Seeded['ids'] {
    const delivery = enqueueDelivery(srv.core, {
      kind,
      accountId,
      sourceId,
      sourceName: 'Source',
      eventName: 'channel_create',
      url: 'http://127.0.0.1:9/a',
      method: 'post',
      payload: { call_id: 'x' },
      // never due while the test runs: nothing is sent
      dueAt: Date.now() + 3_600_000,
    });
    const row = findDelivery(srv.core, delivery)!;
    const at = Date.now() - 60_000;
    const ids = statuses.map((status, i) =>
      String(recordAttempt(srv.core, row, { ok: status < 300, url: row.url, status, reason: status < 300 ? undefined : 'bad response code', latencyMs: 1, reqHeaders: {}, reqBody: "{}" }, i + 1, 0, at + i)),
    );
    return ids.reverse() as Seeded['ids'];
  }

  for (const kind of kinds) {
    it(kind.name, async () => {
      const seeded = await kind.seed();
      const idsOf = kind.idsOf ?? ((data: any) => data.map((r: any) => String(r.id)));
      const [first, middle, last] = seeded.ids;

      if (kind.name === 'webhook samples') {
        // fetch_webhook_samples/2 filters the sample file: every sample has a direction
        const all = await get(seeded.path, 'paginate=false');
        const kept = await get(seeded.path, seeded.keep);
        expect(kept.data.length).toBeGreaterThan(0);
        expect(kept.data.length).toBe(all.data.length);
        expect((await get(seeded.path, 'filter_call_direction=sideways')).data).toEqual([]);
        return;
      }

      const kept = idsOf((await get(seeded.path, seeded.keep)).data);
      expect(kept).toContain(first);
      expect(kept).toContain(last);
      expect(kept).not.toContain(middle);
      // a filter that keeps nothing: an empty listing, not the whole one
      expect(idsOf((await get(seeded.path, 'filter_custom.tag=nothing-has-this&filter_not_x=y')).data)).toEqual([]);
      if (kind.unpaged) return;

      // keyset paging walks the filtered set: a page of one, then next_start_key
      const walked: string[] = [];
      let qs = `${seeded.keep}&page_size=1`;
      for (let pages = 0; pages < 20; pages++) {
        const body = await get(seeded.path, qs);
        walked.push(...idsOf(body.data));
        if (body.next_start_key === undefined) break;
        qs = `${seeded.keep}&page_size=1&start_key=${encodeURIComponent(body.next_start_key)}`;
      }
      expect(walked).toEqual(kept);
      // paginate=false streams the filtered listing, without paging keys
      const whole = await get(seeded.path, `${seeded.keep}&paginate=false`);
      expect(idsOf(whole.data)).toEqual(kept);
      expect(whole).not.toHaveProperty('page_size');
      expect(whole).not.toHaveProperty('next_start_key');
    });
  }

  it('created_from/created_to and modified_from/modified_to compare the document’s times in Gregorian seconds (lowerbound/2, upperbound/2)', async () => {
    const id = await put(`accounts/${account}/devices`, { name: 'Timed' });
    const doc = await get(`accounts/${account}/devices/${id}`, '');
    const created = (await get(`accounts/${account}/devices`, `filter_name=Timed`)).data;
    expect(created.map((d: any) => d.id)).toEqual([id]);
    const at = Math.floor(Date.now() / 1000) + 62_167_219_200;
    const ids = async (qs: string) => (await get(`accounts/${account}/devices`, `filter_name=Timed&${qs}`)).data.map((d: any) => d.id);
    expect(await ids(`created_from=${at - 60}&created_to=${at + 60}`)).toEqual([id]);
    expect(await ids(`created_from=${at + 60}`)).toEqual([]);
    expect(await ids(`modified_to=${at - 60}`)).toEqual([]);
    expect(await ids(`modified_from=${at - 60}`)).toEqual([id]);
    expect(doc.data.id).toBe(id);
    const bad = await srv.request('GET', `/v2/accounts/${account}/devices?created_from=yesterday`, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.data).toEqual({ created_from: { type: { message: 'Value did not match type(s): integer', target: 'integer', value: 'yesterday' } } });
  });

  it('a listing of a time window (CDRs, crossbar_view:ranged) reads created_from/created_to as its range and applies the other filters over the whole record', async () => {
    const owner = (await createSubAccount(srv, account, 'Calls filtered')).id;
    for (const caller of ['+14155550501', '+14155550502']) {
      const r = await srv.request('PUT', `/v2/accounts/${owner}/simulations`, { token, data: { kind: 'call', caller_id_number: caller, callee_id_number: '+14155550599' } });
      expect(r.status).toBe(201);
    }
    const path = `accounts/${owner}/cdrs/interaction`;
    const rows = (await get(path, '')).data;
    expect(rows).toHaveLength(2);
    const now = Math.floor(Date.now() / 1000) + 62_167_219_200;
    const kept = (await get(path, `created_from=${now - 600}&created_to=${now + 60}&filter_call_id=${rows[1].call_id}`)).data;
    expect(kept.map((r: any) => r.call_id)).toEqual([rows[1].call_id]);
    expect((await get(path, `created_from=${now - 600}&filter_call_id=nobody`)).data).toEqual([]);
  });

  it('a filter that keeps two rows of 3,000 answers them a page at a time: the reads go on past rows that do not match', async () => {
    const owner = (await createSubAccount(srv, account, 'Many devices')).id;
    const insert = srv.core.db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, 'device', ?, ?, '{}', '1-x', ?, ?)");
    const now = Date.now();
    srv.core.db.exec('BEGIN');
    for (let i = 0; i < 3000; i++) {
      const tag = i === 10 || i === 2990 ? 'rare' : 'common';
      insert.run(`dev${String(i).padStart(29, '0')}`, owner, JSON.stringify({ name: `Bulk ${i}`, custom: { tag } }), now + i, now + i);
    }
    srv.core.db.exec('COMMIT');
    const path = `accounts/${owner}/devices`;
    const first = await get(path, 'filter_custom.tag=rare&page_size=1');
    expect(first.data.map((d: any) => d.name)).toEqual(['Bulk 10']);
    const second = await get(path, `filter_custom.tag=rare&page_size=1&start_key=${encodeURIComponent(first.next_start_key)}`);
    expect(second.data.map((d: any) => d.name)).toEqual(['Bulk 2990']);
    expect(second.next_start_key).toBeUndefined();
    expect((await get(path, 'filter_custom.tag=none')).data).toEqual([]);
    expect((await get(path, 'filter_custom.tag=rare&paginate=false')).data.map((d: any) => d.name)).toEqual(['Bulk 10', 'Bulk 2990']);
  });

  it('the CLI listings take --filter KEY=VALUE: the same filters, on the same documents, as the API', async () => {
    const owner = (await createSubAccount(srv, account, 'CLI filters')).id;
    const tel = (...args: string[]) => runTel([...args, '--db', srv.dbFile, '--json']);
    const ids = (run: { code: number; stdout: string; stderr: string }) => {
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { id: string }[]).map((r) => r.id).sort();
    };
    const apiIds = async (path: string, qs: string) => (await get(path, `${qs}&paginate=false`)).data.map((r: any) => String(r.id)).sort();
    for (const [i, hook] of ['channel_create', 'channel_answer', 'channel_create'].entries()) {
      await put(`accounts/${owner}/webhooks`, { name: `CLI hook ${i}`, uri: `http://127.0.0.1:9/c${i}`, hook, custom_data: { team: i === 2 ? 'blue' : 'red' } });
    }
    expect(ids(await tel('webhooks', 'list', '--account', owner, '--filter', 'hook=channel_create', '--filter', 'custom_data.team=["red","green"]'))).toEqual(
      await apiIds(`accounts/${owner}/webhooks`, 'filter_hook=channel_create&filter_custom_data.team=["red","green"]'),
    );
    for (const [i, weight] of [10, 20, 10].entries()) await put(`accounts/${owner}/resources`, { name: `CLI carrier ${i}`, weight_cost: weight, gateways: [{ server: `c${i}.example.com` }] });
    const resources = ids(await tel('resources', 'list', '--account', owner, '--filter', 'weight_cost=10'));
    expect(resources).toHaveLength(2);
    expect(resources).toEqual(await apiIds(`accounts/${owner}/resources`, 'filter_weight_cost=10'));
    await put(`accounts/${owner}`, { name: 'CLI child', custom: { tag: 'found' } });
    const accounts = ids(await tel('accounts', 'list', '--under', owner, '--filter', 'custom.tag=found'));
    expect(accounts).toEqual(await apiIds(`accounts/${owner}/descendants`, 'filter_custom.tag=found'));
    expect(accounts).toHaveLength(1);
    const hook = await put(`accounts/${owner}/webhooks`, { name: 'CLI attempted', uri: 'http://127.0.0.1:9/x', hook: 'channel_create' });
    const made = attempts('webhook', owner, hook, [500, 200, 500]);
    const failed = (JSON.parse((await tel('webhooks', 'attempts', '--account', owner, '--hook', hook, '--limit', '1', '--filter', 'result=failure')).stdout) as { id: number }[]).map((a) => String(a.id));
    expect(failed).toEqual([made[0]]);
    const app = addApp(srv.core, { name: 'cli-app', i18n: { 'en-US': { label: 'CLI app' } }, tags: ['cli-only'] }).id;
    expect(ids(await tel('apps', 'list', '--filter', 'tags=cli-only'))).toEqual([app]);
    const usage = await runTel(['webhooks', 'list', '--account', owner, '--filter', 'no-equals-sign', '--db', srv.dbFile]);
    expect(usage.code).toBe(2);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installQueryLog, logged, planOf, rowsRead, wholeTableSteps, type Executed } from './helpers/query-log.js';
import { httpRequest, tempDir } from './helpers/server.js';

// Every statement of this process is logged: installed before the database is opened.
installQueryLog();
const { closeCore, openCore } = await import('../src/core.js');
const { initDatabase } = await import('../src/modules/accounts/bootstrap.js');
const { createAccount } = await import('../src/modules/accounts/service.js');
const { createUser } = await import('../src/modules/users/service.js');
const { createWebhook } = await import('../src/modules/webhooks/service.js');
const { createApiServer } = await import('../src/http/server.js');
const { apiRouter } = await import('../src/http/api-router.js');

type Core = import('../src/core-type.js').Core;

const PAGE = 50;
/** Statements a page's request may run: the token, the account, the page (and a user's level or a hook's existence). */
const MAX_STATEMENTS = 4;
/** The kinds of documents the switch-facing modules list, one each a unit row. */
const SWITCH_KINDS = ['call_recording', 'sms', 'mms', 'fax_inbox', 'fax_outbox', 'fax_job', 'fax_smtp_log', 'call_stat'];
/** A document with the fields each of those kinds' listings answer (a recording's, a message's, a fax's, a log entry's). */
const SWITCH_DOC = JSON.stringify({
  name: 'r.wav', call_id: 'c', content_type: 'audio/x-wav', duration_ms: 1000, start: 63_900_000_000,
  from_user: 'a', to_user: 'b', body: 'hi', from: 'a', to: 'b', from_number: '+14155550100', to_number: '+14155550101', errors: ['refused'],
});
const gregorianDaysAgo = (days: number) => Math.floor(Date.now() / 1000) + 62_167_219_200 - days * 86_400;
const id = () => randomBytes(16).toString('hex');

/**
 * The rows a lab has, in a number of "units": each unit is ten children of the reseller (and ten
 * accounts below them), ten of each document kind and hook, and a hundred attempts and numbers.
 */
class Lab {
  master!: string;
  reseller!: string;
  objects!: string;
  /** the account of the rest of Kazoo's modules' documents: agents, hotdesks, list entries, selectors, a click-to-call's history */
  crossbar!: string;
  list!: string;
  clicktocall!: string;
  quietHook!: string;
  /** the user and the device half the CDRs and channels are of */
  caller!: string;
  phone!: string;
  /** a voicemail box (of the reseller) holding many messages */
  box!: string;
  /** a queue of the objects account, answered by one user in ten */
  queue!: string;
  children: string[] = [];
  units = 0;
  /** batches of attempts added so far (see attempts) */
  attemptBatches = 0;
  /** the alerts an admin of the objects account reads, and a plain user of it */
  alertsForAdmins = 0;
  alertsForUsers = 0;
  private hookDoc!: Record<string, unknown>;

  constructor(readonly core: Core) {}

  init(): void {
    const init = initDatabase(this.core, { account: 'Lab', username: 'admin', password: 'admin-pass' });
    this.master = init.account_id;
    this.reseller = createAccount(this.core, { name: 'Reseller' }, { parentId: this.master }).id;
    this.objects = createAccount(this.core, { name: 'Objects' }, { parentId: this.master }).id;
    this.crossbar = createAccount(this.core, { name: 'Crossbar' }, { parentId: this.master }).id;
    this.list = id();
    this.clicktocall = id();
    for (const [docId, kind, body] of [[this.list, 'list', { name: 'Callers' }], [this.clicktocall, 'clicktocall', { name: 'Call us', extension: '1000' }]] as const) {
      this.core.db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, '{}', '1-x', 0, 0)").run(docId, kind, this.crossbar, JSON.stringify(body));
    }
    createUser(this.core, this.objects, { username: 'clerk', password: 'clerk-pass', first_name: 'Cal', last_name: 'Clerk', priv_level: 'user' });
    const model = createWebhook(this.core, this.objects, { name: 'Quiet', uri: 'http://127.0.0.1:9/quiet', hook: 'channel_create' });
    this.quietHook = model.id;
    this.caller = createUser(this.core, this.objects, { username: 'caller', first_name: 'Cy', last_name: 'Caller' }).id;
    this.phone = id();
    this.core.db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, 'device', ?, '{\"name\":\"Caller phone\"}', '{}', '1-x', 0, 0)").run(this.phone, this.objects);
    this.queue = id();
    this.core.db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, 'queue', ?, ?, '{}', '1-x', 0, 0)")
      .run(this.queue, this.objects, JSON.stringify({ name: 'Support' }));
    this.box = id();
    this.core.db.prepare("INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, 'vmbox', ?, ?, '{}', '1-x', 0, 0)")
      .run(this.box, this.reseller, JSON.stringify({ name: 'Full box', mailbox: '1' }));
    const { id: _id, ...doc } = model.doc as Record<string, unknown> & { id?: string };
    this.hookDoc = doc;
    // the quiet hook's attempts are among the oldest
    this.attempts(10, this.quietHook, Date.now() - 30 * 86_400_000);
  }

  /** Adds `units` units of rows. */
  grow(units: number): void {
    const db = this.core.db;
    for (let u = 0; u < units; u++, this.units++) {
      for (let i = 0; i < 10; i++) {
        const name = `Customer ${String(this.units * 10 + i).padStart(6, '0')}`;
        const child = createAccount(this.core, { name }, { parentId: this.reseller }).id;
        this.children.push(child);
        createAccount(this.core, { name: `Site of ${name}` }, { parentId: this.children[(this.units * 7 + i) % this.children.length] });
      }
    }
    db.exec('BEGIN');
    const now = Date.now();
    const doc = db.prepare('INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const hook = db.prepare(`INSERT INTO webhooks (id, account_id, hook, enabled, include_subaccounts, doc, rev, created, modified) VALUES (?, ?, 'channel_create', 1, 0, ?, '1-x', ?, ?)`);
    const sub = db.prepare(`INSERT INTO push_subscriptions (id, account_id, app_name, device_id, mobile_device_id, doc, rev, created, modified) VALUES (?, ?, 'app', ?, ?, '{}', '1-x', ?, ?)`);
    const push = db.prepare('INSERT INTO push_notifications (id, account_id, doc, created) VALUES (?, ?, ?, ?)');
    const alert = db.prepare('INSERT INTO alerts (id, doc, created) VALUES (?, ?, ?)');
    const cdr = db.prepare(`INSERT INTO cdrs (account_id, id, created, owner_id, authorizing_id, interaction_id, interaction_time, channel_time, first_leg, doc)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '{"call_direction":"inbound","timestamp":63900000000,"duration_seconds":30}')`);
    const channel = db.prepare('INSERT INTO channels (account_id, uuid, call_id, owner_id, authorizing_id, created, doc) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const message = db.prepare("INSERT INTO vm_messages (id, account_id, box_id, folder, timestamp, metadata, created) VALUES (?1, ?, ?, 'new', ?, json_object('media_id', ?1), ?)");
    const registration = db.prepare('INSERT INTO registrations (account_id, username, device_id, expires_at, fields) VALUES (?, ?, ?, ?, ?)');
    const c2c = db.prepare("INSERT INTO clicktocall_history (clicktocall_id, created, id, account_id, doc) VALUES (?, ?, ?, ?, ?)");
    for (let i = 0; i < units * 10; i++) {
      // several rows share a creation time: the keys' second column keeps the order whole
      const at = now + Math.floor(i / 3);
      const queues = i % 10 === 0 ? [this.queue] : [];
      doc.run(id(), 'user', this.objects, JSON.stringify({ username: `user-${id()}`, priv_level: 'user', enabled: true, queues }), '{}', '1-x', at, at);
      const device = id();
      doc.run(device, 'device', this.objects, JSON.stringify({ name: `Phone ${device}`, enabled: true }), '{}', '1-x', at, at);
      const vmbox = id();
      doc.run(vmbox, 'vmbox', this.objects, JSON.stringify({ name: `Box ${vmbox}`, mailbox: String(1000 + this.units * 10 + i) }), '{}', '1-x', at, at);
      doc.run(id(), 'faxbox', this.objects, JSON.stringify({ name: `Fax ${i}` }), JSON.stringify({ pvt_smtp_email_address: `${i}.fax.example` }), '1-x', at, at);
      // a message in every box (and ten a unit in the reseller's full one), a registration a device
      message.run(`202601-${id()}`, this.objects, vmbox, 63_900_000_000 + i, at);
      message.run(`202601-${id()}`, this.reseller, this.box, 63_900_000_000 + this.units * 10 + i, at);
      registration.run(this.objects, `phone-${device}`, device, now + 3_600_000, JSON.stringify({ username: `phone-${device}`, realm: 'objects.example', authorizing_id: device, contact: `<sip:phone-${device}@192.0.2.10>`, expires: 3600 }));
      doc.run(id(), 'callflow', this.objects, JSON.stringify({ name: `Flow ${i}`, numbers: [], flow: { module: 'user' } }), '{}', '1-x', at, at);
      doc.run(id(), 'resource', this.objects, JSON.stringify({ name: `Carrier ${i}`, enabled: true, weight_cost: 50 }), '{}', '1-x', at, at);
      // the templates the objects' reseller (the master account) offers
      doc.run(id(), 'resource_template', this.master, JSON.stringify({ name: `Template ${i}`, template_name: `t${i}` }), '{}', '1-x', at, at);
      hook.run(id(), this.objects, JSON.stringify({ ...this.hookDoc, name: `Hook ${i}` }), at, at);
      sub.run(id(), this.objects, device, `mobile-${device}`, at, at);
      const pushId = id();
      push.run(pushId, this.objects, JSON.stringify({ id: pushId, title: 'x' }), at);
      alert.run(id(), JSON.stringify({ title: `Alert ${i}`, message: 'x', from: [{ type: 'superduper_admin', value: 'x' }], to: this.audienceOf(i) }), at);
      // what the switch left: the modules' documents of the month, two CDR legs and a channel per call
      for (const kind of SWITCH_KINDS) doc.run(`202601-${id()}`, kind, this.objects, SWITCH_DOC, '{"status":"delivered","job_status":"pending"}', '1-x', at, at);
      const mine = i % 2 === 0;
      const interaction = `${Math.floor(at / 1000) + 62_167_219_200}-${id().slice(0, 8)}`;
      for (const leg of [0, 1]) {
        cdr.run(this.objects, `202601-${id()}`, at, mine ? this.caller : null, mine ? this.phone : null, interaction, Math.floor(at / 1000) + 62_167_219_200, at * 1000 + leg, leg === 0 ? 1 : 0);
      }
      const uuid = id();
      const call = { id: uuid, accountId: this.objects, base: mine ? { owner_id: this.caller, authorizing_id: this.phone } : {}, legs: [{ callId: uuid, direction: 'inbound', destination: '1000', startedMs: at, reported: true }], ringingSeconds: 0, record: false, interactionId: interaction, realm: 'lab' };
      channel.run(this.objects, uuid, uuid, mine ? this.caller : null, mine ? this.phone : null, at, JSON.stringify(call));
      // the rest of Kazoo's modules: half the users are agents, each device a user's hotdesk, two lists' entries, selectors
      const c = (kind: string, body: Record<string, unknown>) => doc.run(id(), kind, this.crossbar, JSON.stringify(body), '{}', '1-x', at, at);
      c('user', { first_name: 'Agent', last_name: String(i), queues: ['q'] });
      c('user', { first_name: 'Clerk', last_name: String(i) });
      c('device', { name: `Hotdesk ${i}`, hotdesk: { users: { [id()]: {} } } });
      c('list_entry', { list_id: this.list, number: String(i) });
      c('list_entry', { list_id: 'another-list', number: String(i) });
      c('resource_selector', { name: `n${i % 7}`, resource: `r${i % 5}`, selector: String(i) });
      c2c.run(this.clicktocall, at, id(), this.crossbar, JSON.stringify({ timestamp: 63_900_000_000 + i, contact: `+1415555${String(i).padStart(4, '0')}`, result: 'success' }));
      if (i % 4 !== 3) this.alertsForAdmins++;
      if (i % 4 < 2) this.alertsForUsers++;
    }
    db.exec('COMMIT');
    this.attempts(units * 100, `busy-${this.units % 3}`, now);
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${units * 100 - 1})
      INSERT INTO phone_numbers (number, account_id, resource_id, state, job_id, created, modified)
      SELECT '+1' || (3000000000 + ${this.units * 1000} + i), '${this.objects}', 'r', 'reserved', NULL, ${now}, ${now} FROM n`);
  }

  /** Whom alert `i` is for: in turn everyone, the objects' users, the master's descendants' admins, and (none of the objects') the reseller. */
  audienceOf(i: number): unknown[] {
    return [[{ type: 'all', value: 'all' }], [{ type: this.objects, value: 'users' }], [{ type: 'descendants', value: [this.master, 'admins'] }], [{ type: this.reseller, value: 'all' }]][i % 4];
  }

  /**
   * Adds `count` attempts of a source, one a second from `from` (unix ms). Each batch's times fall
   * on a millisecond of their own within the second: two batches sharing a time would have a page
   * that starts among them read a row more than it answers, by chance (one run in a thousand).
   */
  attempts(count: number, source: string, from: number): void {
    from = from - (from % 1000) + this.attemptBatches++;
    this.core.db.exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})
      INSERT INTO delivery_attempts (delivery_id, event_id, kind, account_id, source_id, source_name, event_name, uri, method, result,
        http_status, latency_ms, try, retries_left, req_headers, req_body, created)
      SELECT i, lower(hex(randomblob(5))), 'webhook', '${this.objects}', '${source}', 'Hook', 'channel_create', 'http://127.0.0.1:9/', 'post',
        'success', 200, 3, 1, 2, '{}', '{"call_id":"x"}', ${from} + i * 1000 FROM n`);
  }
}

/** What walking a listing page by page cost. */
interface Walk {
  rows: string[];
  /** statements run by each page's request */
  statementsPerPage: number[];
  /** the most rows any statement handed back */
  mostRows: number;
  /** the most rows any statement read (of its first table) to answer */
  mostRead: number;
  /** every distinct statement run */
  sql: Set<string>;
}

describe('listings read the page they answer, whatever the size of the table', () => {
  const tmp = tempDir('tel-costs-');
  let core: Core;
  let server: Server;
  let url: string;
  let admin: string;
  let clerk: string;
  let lab: Lab;

  beforeAll(async () => {
    core = openCore(join(tmp.dir, 'costs.db'));
    lab = new Lab(core);
    lab.init();
    // the API alone (no background workers): every statement logged is a request's
    server = createApiServer(core, apiRouter());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const apiKey = (core.db.prepare('SELECT api_key FROM accounts WHERE id = ?').get(lab.master) as { api_key: string }).api_key;
    admin = (await httpRequest(url, 'PUT', '/v2/api_auth', { data: { api_key: apiKey } })).body.auth_token;
    const credentials = createHash('md5').update('clerk:clerk-pass').digest('hex');
    clerk = (await httpRequest(url, 'PUT', '/v2/user_auth', { data: { credentials, account_name: 'Objects' } })).body.auth_token;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    closeCore(core);
    tmp.cleanup();
  });

  /** Walks a listing page by page, logging what each page's request ran. */
  async function walk(path: string, token: string): Promise<Walk> {
    const out: Walk = { rows: [], statementsPerPage: [], mostRows: 0, mostRead: 0, sql: new Set() };
    let key: string | undefined;
    const sep = path.includes('?') ? '&' : '?';
    do {
      const page = `${path}${sep}page_size=${PAGE}${key ? `&start_key=${encodeURIComponent(key)}` : ''}`;
      const { result: r, queries } = await logged(() => httpRequest(url, 'GET', page, { token }));
      expect(r.status, `${page}: ${r.text}`).toBe(200);
      const data = r.body.data;
      // a row's id: a document's, a channel's uuid, a message's media_id, a registration's username, a hotdesk's device_id
      const idOf = (row: Record<string, unknown>) => String(row.id ?? row.uuid ?? row.media_id ?? row.username ?? row.device_id);
      const ids: string[] = Array.isArray(data) ? data.map(idOf) : Object.keys(data.numbers);
      expect(ids.length).toBeLessThanOrEqual(PAGE);
      out.rows.push(...ids);
      // a row cache's look at the file's change counter (at most once a millisecond: more often on a busy machine) reads no rows
      out.statementsPerPage.push(queries.filter((q) => !/^PRAGMA data_version/.test(q.sql)).length);
      for (const q of queries as Executed[]) {
        out.mostRows = Math.max(out.mostRows, q.rows);
        out.mostRead = Math.max(out.mostRead, rowsRead(core.db, q.sql, q.args));
        out.sql.add(q.sql);
      }
      key = r.body.next_start_key;
    } while (key !== undefined);
    return out;
  }

  /**
   * Each listing: its name, path, token, and row count, and the rows its statements may read beyond a
   * page (the alerts, a merge of one range per audience of the caller, read one row ahead in each).
   */
  const listings = (): [string, string, () => string, () => number, number?][] => {
    const o = `/v2/accounts/${lab.objects}`;
    const docs = () => lab.units * 10;
    return [
      ['children of an account with many children', `/v2/accounts/${lab.reseller}/children`, () => admin, () => lab.units * 10],
      ['descendants', `/v2/accounts/${lab.master}/descendants`, () => admin, () => lab.units * 20 + 3],
      ['siblings of an account with many siblings', `/v2/accounts/${lab.children[0]}/siblings`, () => admin, () => lab.units * 10],
      ['parents of an account (its ancestors)', `/v2/accounts/${lab.children.at(-1)}/parents`, () => admin, () => 2],
      ['users', `${o}/users`, () => admin, () => docs() + 2],
      ['devices', `${o}/devices`, () => admin, () => docs() + 1],
      // a page's boxes' messages are counted from the box index: a message each here
      ['voicemail boxes, with their messages counted', `${o}/vmboxes`, () => admin, docs, PAGE],
      ['fax boxes, with their SMTP addresses', `${o}/faxboxes`, () => admin, docs],
      ["a box's voicemail messages", `/v2/accounts/${lab.reseller}/vmboxes/${lab.box}/messages`, () => admin, docs],
      ['registrations', `${o}/registrations`, () => admin, docs],
      ['callflows', `${o}/callflows`, () => admin, docs],
      ['resources', `${o}/resources`, () => admin, docs],
      ['resource templates', `${o}/resource_templates`, () => admin, docs],
      ['webhooks', `${o}/webhooks`, () => admin, () => docs() + 1],
      ['webhooks, as a plain user (secrets masked)', `${o}/webhooks`, () => clerk, () => docs() + 1],
      ['push subscriptions', `${o}/push_notification_subscriptions`, () => admin, docs],
      ['the push outbox', `${o}/push_notifications`, () => admin, docs],
      ['attempts', `${o}/webhooks/attempts`, () => admin, () => lab.units * 100 + 10],
      ['attempts of a quiet hook', `${o}/webhooks/${lab.quietHook}/attempts`, () => admin, () => 10],
      ['attempts in a window', `${o}/webhooks/attempts?created_from=${gregorianDaysAgo(1)}&created_to=${gregorianDaysAgo(-1)}`, () => admin, () => lab.units * 100],
      ['attempts in an old window', `${o}/webhooks/attempts?created_from=${gregorianDaysAgo(31)}&created_to=${gregorianDaysAgo(20)}`, () => admin, () => 10],
      ['the number inventory', `${o}/phone_numbers`, () => admin, () => lab.units * 100],
      ['CDRs', `${o}/cdrs`, () => admin, () => docs() * 2],
      ["a user's CDRs", `${o}/users/${lab.caller}/cdrs`, () => admin, docs],
      ["a device's CDRs", `${o}/devices/${lab.phone}/cdrs`, () => admin, docs],
      ['interactions', `${o}/cdrs/interaction`, () => admin, docs],
      ['channels', `${o}/channels`, () => admin, docs],
      ["a user's channels", `${o}/users/${lab.caller}/channels`, () => admin, () => docs() / 2],
      ['recordings', `${o}/recordings`, () => admin, docs],
      ['sms', `${o}/sms`, () => admin, docs],
      ['faxes to send', `${o}/faxes/outgoing`, () => admin, docs],
      ['the fax inbox', `${o}/faxes/inbox`, () => admin, docs],
      ['the fax SMTP log', `${o}/faxes/smtplog`, () => admin, docs],
      ['queue call statistics', `${o}/acdc_call_stats`, () => admin, docs],
      // nine audiences for an admin here (everyone's, the account's, the master's descendants', each by group), seven for a user
      ['alerts, as an admin', `${o}/alerts`, () => admin, () => lab.alertsForAdmins, 8],
      ['alerts, as a plain user', `${o}/alerts`, () => clerk, () => lab.alertsForUsers, 6],
      ['agents (the users with queues)', `/v2/accounts/${lab.crossbar}/agents`, () => admin, docs],
      ['hotdesks', `/v2/accounts/${lab.crossbar}/hotdesks`, () => admin, docs],
      ["a list's entries", `/v2/accounts/${lab.crossbar}/lists/${lab.list}/entries`, () => admin, docs],
      ['resource selectors of a name and a resource', `/v2/accounts/${lab.crossbar}/resource_selectors/name/n1/resource/r1`, () => admin, () => Math.ceil((docs() - 1) / 35)],
      ["a click-to-call's history", `/v2/accounts/${lab.crossbar}/clicktocall/${lab.clicktocall}/history`, () => admin, docs],
    ];
  };

  it('each listing: every row once, each page read from an index (never a scan or a sort of the table), no page reading more rows than it answers, at 10× the rows as at 1×', async () => {
    lab.grow(6);
    const small = new Map<string, Walk>();
    for (const [name, path, token, count] of listings()) {
      const w = await walk(path, token());
      expect(w.rows.length, name).toBe(count());
      expect(new Set(w.rows).size, `${name}: a row listed twice`).toBe(w.rows.length);
      small.set(name, w);
    }
    lab.grow(54);
    for (const [name, path, token, count, beyond = 0] of listings()) {
      const big = await walk(path, token());
      expect(big.rows.length, name).toBe(count());
      expect(new Set(big.rows).size, `${name}: a row listed twice`).toBe(big.rows.length);
      const before = small.get(name)!;
      // a page costs what it cost at a tenth of the rows: a few statements (never one a row), none
      // reading more than a page and the key of the next, on the first page as on the last
      for (const w of [before, big]) {
        expect(Math.max(...w.statementsPerPage), `${name}: ${[...w.sql].join('\n')}`).toBeLessThanOrEqual(MAX_STATEMENTS);
        expect(w.mostRows, name).toBeLessThanOrEqual(PAGE + 1);
        expect(w.mostRead, name).toBeLessThanOrEqual(PAGE + 1 + beyond);
      }
      for (const sql of big.sql) expect(wholeTableSteps(planOf(core.db, sql)), `${name}: ${sql}`).toEqual([]);
    }
  });

  it('a username taken in another letter case is found by a lookup, not by reading the account\'s users', async () => {
    const NAMES = { first_name: 'New', last_name: 'User' };
    const users = `/v2/accounts/${lab.objects}/users`;
    const { result: taken, queries } = await logged(() => httpRequest(url, 'PUT', users, { token: admin, data: { ...NAMES, username: 'CLERK', password: 'pw' } }));
    expect(taken.status).toBe(400);
    expect(taken.body.data.username.unique).toBeDefined();
    for (const q of queries) expect(wholeTableSteps(planOf(core.db, q.sql)), q.sql).toEqual([]);
    expect(Math.max(...queries.map((q) => q.rows))).toBeLessThanOrEqual(1);
    // usernames are stored in lower case (Kazoo's), and a username holds ASCII letters only (its schema)
    expect((await httpRequest(url, 'PUT', users, { token: admin, data: { ...NAMES, username: 'Carol', password: 'pw' } })).body.data.username).toBe('carol');
    expect((await httpRequest(url, 'PUT', users, { token: admin, data: { ...NAMES, username: 'cAROL', password: 'pw' } })).status).toBe(400);
    expect((await httpRequest(url, 'PUT', users, { token: admin, data: { ...NAMES, username: 'Éric', password: 'pw' } })).status).toBe(400);
  });

  it("a queue's agents are a search of the key, not a read of the account's users", async () => {
    const { result: r, queries } = await logged(() => httpRequest(url, 'GET', `/v2/accounts/${lab.objects}/queues/${lab.queue}`, { token: admin }));
    expect(r.status).toBe(200);
    expect(r.body.data.agents).toHaveLength(lab.units);
    expect(lab.units).toBeGreaterThan(10);
    for (const q of queries) {
      expect(wholeTableSteps(planOf(core.db, q.sql)), q.sql).toEqual([]);
      // the agents (one user in ten), never the users
      expect(rowsRead(core.db, q.sql, q.args), q.sql).toBeLessThanOrEqual(lab.units);
    }
  });

  it('the bulk re-enable down the tree reads the auto-disabled hooks, not every account\'s hooks', async () => {
    const disabled = core.db
      .prepare(`UPDATE webhooks SET enabled = 0, disable_reason = 'too many failures', doc = json_set(doc, '$.enabled', json('false'))
        WHERE id IN (SELECT id FROM webhooks WHERE account_id = ? LIMIT 3) RETURNING id, rev`)
      .all(lab.objects) as { id: string; rev: string }[];
    const { result: r, queries } = await logged(() =>
      httpRequest(url, 'PATCH', `/v2/accounts/${lab.master}/descendants/webhooks`, { token: admin, data: { 're-enable': true } }),
    );
    expect(r.status).toBe(200);
    for (const q of queries) {
      // the partial index holds the auto-disabled hooks only: reading it whole is the point
      const steps = wholeTableSteps(planOf(core.db, q.sql)).filter((step) => !/USING INDEX webhooks_auto_disabled/.test(step));
      expect(steps, q.sql).toEqual([]);
    }
    for (const d of disabled) {
      const now = core.db.prepare('SELECT enabled, disable_reason, rev, json_extract(doc, \'$.enabled\') AS doc_enabled FROM webhooks WHERE id = ?').get(d.id);
      expect(now).toMatchObject({ enabled: 1, disable_reason: null, doc_enabled: 1 });
      expect((now as { rev: string }).rev).not.toBe(d.rev);
    }
  });

  it('a children listing with many children answers descendants_count from the tree, in the page statement', async () => {
    const r = await httpRequest(url, 'GET', `/v2/accounts/${lab.reseller}/children?page_size=${PAGE}`, { token: admin });
    const counts = r.body.data.map((c: { descendants_count: number }) => c.descendants_count);
    const below = (core.db.prepare('SELECT count(*) AS n FROM accounts WHERE parent_id IN (SELECT id FROM accounts WHERE parent_id = ?)').get(lab.reseller) as { n: number }).n;
    expect(counts.every((n: number) => Number.isInteger(n))).toBe(true);
    // every grandchild is counted under its parent, on some page
    const all = await httpRequest(url, 'GET', `/v2/accounts/${lab.reseller}/children?paginate=false`, { token: admin });
    expect(all.body.data.reduce((s: number, c: { descendants_count: number }) => s + c.descendants_count, 0)).toBe(below);
    expect(all.body.data.map((c: { name: string }) => c.name)).toEqual([...all.body.data.map((c: { name: string }) => c.name)].sort((a, b) => a.localeCompare(b)));
  });
});

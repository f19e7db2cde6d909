#!/usr/bin/env node
// Kazoo's documented examples, replayed against tel: do tel's answers have the shapes Kazoo's
// documentation shows?
//
//   node scripts/kazoo-examples.mjs KAZOO_CHECKOUT [--url URL --api-key KEY] [--only FILE.md] [--verbose] [--json]
//
// KAZOO_CHECKOUT is a checkout of github:2600hz/kazoo (or its applications/crossbar/doc directory).
// Each page of Kazoo's crossbar documentation shows requests (`> PUT /v2/...`, a curl command with
// its `-d` body) and the answers Kazoo gave. For every request whose endpoint tel serves (a route of
// tel's OpenAPI document with the same literal segments), the request is sent to a tel server —
// `tel serve --ephemeral` started for the run, or the one at --url — in a fresh sub-account holding
// one document of each kind the paths name ({DEVICE_ID}, {VM_MSG_ID}, …), and the answer's shape is
// compared with the example's: the envelope's keys and `data`'s keys, recursively (a listing's rows
// against the example's rows).
//
// A miss is explained when Kazoo's source answers otherwise than its example (EXPLAINED below, each
// naming the function that decides) or when tel differs on purpose (each listed in
// docs/kazoo-differences.md). The summary line counts the examples matched as shown; unexplained
// misses are printed, and the exit code is 1 when there are any. A developer's tool: CI has no
// Kazoo checkout.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEphemeralTel } from './lib/ephemeral-tel.mjs';

function usage(message) {
  if (message) console.error(message);
  console.error('usage: node scripts/kazoo-examples.mjs KAZOO_CHECKOUT [--url URL --api-key KEY] [--only FILE.md] [--verbose] [--json]');
  process.exit(2);
}

const args = process.argv.slice(2);
const opts = { verbose: false, json: false };
let checkout;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--url') opts.url = args[++i];
  else if (a === '--api-key') opts.apiKey = args[++i];
  else if (a === '--only') opts.only = args[++i];
  else if (a === '--verbose') opts.verbose = true;
  else if (a === '--json') opts.json = true;
  else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else checkout = a;
}
if (!checkout) usage();
const docDir = [join(checkout, 'applications/crossbar/doc'), checkout].find((d) => existsSync(join(d, 'accounts.md')));
if (!docDir) usage(`no Kazoo crossbar documentation under ${checkout}`);
const schemaDir = [join(checkout, 'applications/crossbar/priv/couchdb/schemas'), join(docDir, '../priv/couchdb/schemas')].find((d) => existsSync(join(d, 'accounts.json')));

// --- Kazoo's examples ------------------------------------------------------------------------

const REQUEST = /^>\s*(GET|PUT|POST|PATCH|DELETE)\s+(\/v2\/\S+)\s*$/;

/**
 * The examples of one page: each `> METHOD /v2/path` line, the curl commands after it and the
 * answer each is followed by (a section may show a request twice: refused, then accepted).
 */
function examplesOf(file) {
  const lines = readFileSync(join(docDir, file), 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = REQUEST.exec(lines[i]);
    if (!m) continue;
    const blocks = [];
    let j = i + 1;
    let said = '';
    while (j < lines.length && !REQUEST.test(lines[j]) && !/^#{1,3} /.test(lines[j])) {
      const open = /^```\s*(\w*)/.exec(lines[j]);
      if (!open) {
        if (lines[j].trim() !== '') said = lines[j];
        j++;
        continue;
      }
      let k = j + 1;
      while (k < lines.length && !/^```/.test(lines[k])) k++;
      // a block the page introduces as the request's body is that, not an answer
      blocks.push({ lang: open[1], text: lines.slice(j + 1, k).join('\n'), body: /request body/i.test(said) });
      said = '';
      j = k + 1;
    }
    // each curl command with the answers after it (a page may show several: "when invalid", "when OK");
    // other shell blocks between them (how to hash credentials) are neither
    const isCurl = (b) => /(^|\s)curl\s/.test(b.text);
    let n = 0;
    for (let b = 0; b < blocks.length; b++) {
      if (!isCurl(blocks[b])) continue;
      const answers = [];
      let bodyText;
      // a curl sending no body followed by a block without Kazoo's envelope (`status`): the page shows the body apart
      const sendsNone = !/(?:-d|--data(?:-binary)?|-F|--form)\s/.test(blocks[b].text);
      for (let a = b + 1; a < blocks.length && !isCurl(blocks[a]); a++) {
        if (blocks[a].lang === 'shell' || !/^\s*\{/.test(blocks[a].text)) continue;
        const json = looseJson(blocks[a].text);
        const unenveloped = bodyText === undefined && sendsNone && json && typeof json === 'object' && 'data' in json && !('status' in json);
        if (blocks[a].body || unenveloped) bodyText = blocks[a].text;
        else answers.push(blocks[a].text);
      }
      // a request shown without its answer is kept for its body (a later fetch shows what it wrote)
      if (answers.length > 0 || bodyText !== undefined) out.push({ file, method: m[1], path: m[2], index: n++, curl: blocks[b].text, bodyText, answerTexts: answers });
    }
  }
  return out;
}

/** Reads an example's JSON, forgiving what Kazoo's pages write loosely (trailing commas, `...`, comments). */
function looseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    const cleaned = text
      .replace(/\/\/[^\n"]*$/gm, '')
      .replace(/^\s*\.\.\.,?\s*$/gm, '')
      .replace(/,(\s*[}\]])/g, '$1');
    try {
      return JSON.parse(cleaned);
    } catch {
      return undefined;
    }
  }
}

/** The body of a curl command (`-d '…'`), or undefined; `null` when it is not JSON (a file sent, `-F` parts). */
function curlBody(curl) {
  if (/(?:-d|--data(?:-binary)?)\s+@|\s-F\s|--form\s/.test(curl)) return null;
  const m = /(?:-d|--data(?:-binary)?)\s+'([\s\S]*?)'\s*(?:\\|$)/m.exec(curl) ?? /(?:-d|--data(?:-binary)?)\s+"((?:[^"\\]|\\.)*)"/m.exec(curl);
  if (!m) return undefined;
  if (m[1].startsWith('@')) return null;
  return looseJson(m[1]) ?? null;
}

/** The example's query string, from its `>` line or its curl command. */
function queryOf(example) {
  const fromLine = example.path.split('?')[1];
  if (fromLine) return fromLine;
  const m = /http:\/\/\{SERVER\}:8000\/v2\/[^\s'"?]*\?([^\s'"]+)/.exec(example.curl);
  return m ? m[1] : '';
}

// --- which examples tel serves ----------------------------------------------------------------

/** A path's segments after `/v2`, each a literal or a placeholder (`{…}`). */
function segmentsOf(path) {
  return path.split('?')[0].replace(/^\/v2/, '').split('/').filter(Boolean);
}

const isPlaceholder = (s) => /^\{.+\}$/.test(s);

/**
 * True when a route of tel's OpenAPI document serves the example's path with this method: the
 * same number of segments, literals equal, a placeholder where the route has a parameter (a
 * literal of Kazoo's, like `devices/status`, is not served by tel's `devices/{doc_id}`).
 */
function served(routes, method, path) {
  const segs = segmentsOf(path);
  return routes.some(
    (r) => r.method === method && r.parts.length === segs.length && r.parts.every((p, i) => (p.param ? isPlaceholder(segs[i]) : p.literal === segs[i].toLowerCase())),
  );
}

function routesOf(openapi) {
  const routes = [];
  for (const [path, ops] of Object.entries(openapi.paths)) {
    for (const method of Object.keys(ops)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const parts = path.split('/').filter(Boolean).map((p) => (/^\{.+\}$/.test(p) ? { param: true } : { literal: p }));
      routes.push({ method: method.toUpperCase(), parts });
    }
  }
  return routes;
}

// --- the server ---------------------------------------------------------------------------

let base;
async function call(token, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { 'X-Auth-Token': token } : {}) },
    // fetch sends no body with a GET (a few examples show one, which Kazoo ignores too)
    body: body === undefined || method === 'GET' ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** Sends `data` and answers the created or changed document's `data`, failing loudly. */
async function must(token, method, path, data, envelope = {}) {
  const r = await call(token, method, path, { ...envelope, data });
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body?.data)}`);
  return r.body.data;
}

// --- the fixtures: the documents an example's path names -------------------------------------

const md5 = (s) => createHash('md5').update(s).digest('hex');
let serial = 0;
const unique = (prefix) => `${prefix}${Date.now().toString(36)}${(serial++).toString(36)}`;

/** Documents made when a page shows no create request of its own. */
const DEFAULT_BODIES = {
  users: () => ({ first_name: 'Ann', last_name: 'Lee' }),
  devices: () => ({ name: 'New Device' }),
  vmboxes: () => ({ name: 'VMBox 0', mailbox: '3000' }),
  media: () => ({ name: 'Main AA BG', media_source: 'tts', language: 'en-us', tts: { text: 'Hello', voice: 'female/en-US' } }),
  callflows: () => ({ name: 'Main', numbers: ['+14155550100'], flow: { module: 'voicemail', data: {} } }),
  faxboxes: () => ({ name: 'Fax', caller_name: 'Fax', caller_id: '+14155550100', fax_header: 'Fax' }),
  queues: () => ({ name: 'Support Queue' }),
  webhooks: () => ({ name: 'New Calls', uri: 'http://127.0.0.1:9/calls', hook: 'channel_create' }),
  resources: () => ({ name: 'Carrier 3', gateways: [{ server: 'sip.example.com' }] }),
  resource_templates: () => ({ name: 'Template', gateways: [{ server: 'sip.example.com' }] }),
  alerts: () => ({ title: 'Alert', message: 'Hello', category: 'info', from: [{ type: 'superduper_admin', value: true }], to: [{ type: 'all', value: true }] }),
  clicktocall: () => ({ name: 'Call us', extension: '1000' }),
  directories: () => ({ name: 'Company' }),
  groups: () => ({ name: 'Sales', endpoints: {} }),
  faxes: () => ({ from_number: '+14155550100', to_number: '+14155550101', document: { url: 'http://127.0.0.1:9/fax.pdf' } }),
};

/** The placeholder naming a document of each endpoint (a listing of one is seeded with one). */
const PLACEHOLDER_OF = {
  users: 'USER_ID',
  devices: 'DEVICE_ID',
  vmboxes: 'VM_BOX_ID',
  messages: 'VM_MSG_ID',
  media: 'MEDIA_ID',
  callflows: 'CALLFLOW_ID',
  faxboxes: 'FAXBOX_ID',
  queues: 'QUEUE_ID',
  webhooks: 'WEBHOOK_ID',
  resources: 'RESOURCE_ID',
  resource_templates: 'RESOURCE_TEMPLATE_ID',
  jobs: 'JOB_ID',
  alerts: 'ALERT_ID',
  children: 'CHILD_ACCOUNT_ID',
  descendants: 'CHILD_ACCOUNT_ID',
  registrations: 'USERNAME',
  status: 'USERNAME',
  attempts: 'WEBHOOK_ID',
  domains: 'domain',
  clicktocall: 'C2C_ID',
  directories: 'DIRECTORY_ID',
  groups: 'GROUP_ID',
  comments: 'COMMENT_ID',
  rates: 'RATE_ID',
  outgoing: 'FAX_JOB_ID',
};

/** Body keys whose 32-hex values name Kazoo's lab documents: they name the fixtures' instead. */
const ID_KEYS = { owner_id: 'USER_ID', device_id: 'DEVICE_ID', vmbox_id: 'VM_BOX_ID', media_id: 'MEDIA_ID', resource_id: 'RESOURCE_ID' };

/**
 * The placeholders' values for one example, each made when first asked for: a fresh sub-account
 * (`{ACCOUNT_ID}`) and in it the documents the example names, made from the page's own create
 * request when it shows one (so that a fetch answers the document the page created).
 */
function fixtures(env, pageBodies, example) {
  const { token, master } = env;
  const values = {
    AUTH_TOKEN: token,
    AN_AUTH_TOKEN: token,
    PARENT_ACCOUNT_ID: master,
    API_KEY: env.apiKey,
    ACCOUNT_NAME: env.accountName,
    ACCOUNT_REALM: env.realm,
    CREDENTIALS_HASH: md5(`${env.username}:${env.password}`),
    CONFIG_ID: 'crossbar',
    NODE: 'node',
    // a key of a storage's attachments (Kazoo's 32 hex digits)
    UUID: md5('examples'),
    // a number search: the first two numbers of 415 on offer
    PREFIX: '415',
    QUANTITY: '2',
    OFFSET: '0',
    COUNTRY: 'US',
  };
  // multi_factor.md's {CONFIG_ID} is a provider's configuration, not a system category
  if (example.file === 'multi_factor.md') delete values.CONFIG_ID;
  const made = new Map();
  const account = () => get('ACCOUNT_ID');
  const acc = async () => `/v2/accounts/${await account()}`;
  const create = async (endpoint, extra = {}) => {
    const body = { ...(pageBodies[endpoint] ?? DEFAULT_BODIES[endpoint]()), ...extra };
    return must(token, 'PUT', `${await acc()}/${endpoint}`, await withIds(body));
  };
  const makers = {
    ACCOUNT_ID: async () => (await must(token, 'PUT', `/v2/accounts/${master}`, { name: unique('Examples ') })).id,
    ACCOUNT_ID_DESTINATION: async () => (await must(token, 'PUT', `/v2/accounts/${master}`, { name: unique('Destination ') })).id,
    CHILD_ACCOUNT_ID: async () => (await must(token, 'PUT', await acc(), { name: unique('Child ') })).id,
    USER_ID: async () => (await create('users', { username: unique('user'), password: 'Secret-passw0rd' })).id,
    DEVICE_ID: async () => (await create('devices')).id,
    VM_BOX_ID: async () => (await create('vmboxes')).id,
    VM_MSG_ID: async () => {
      const box = await get('VM_BOX_ID');
      const r = await must(token, 'PUT', `${await acc()}/simulations`, { kind: 'voicemail', vmbox_id: box });
      return r.events.find((e) => e.voicemail_id)?.voicemail_id ?? 'none';
    },
    MEDIA_ID: async () => (await create('media')).id,
    CALLFLOW_ID: async () => (await create('callflows')).id,
    FAXBOX_ID: async () => (await create('faxboxes')).id,
    QUEUE_ID: async () => (await create('queues')).id,
    WEBHOOK_ID: async () => (await create('webhooks')).id,
    RESOURCE_ID: async () => (await create('resources')).id,
    RESOURCE_TEMPLATE_ID: async () => (await create('resource_templates')).id,
    ALERT_ID: async () => (await create('alerts')).id,
    JOB_ID: async () => (await must(token, 'PUT', `${await acc()}/resources/jobs`, { numbers: ['+14155550123'], resource_id: await get('RESOURCE_ID') })).id,
    APP_ID: async () => ((await call(token, 'GET', `${await acc()}/apps_store`)).body.data ?? [])[0]?.id ?? 'none',
    SAMPLE_ID: async () => (await call(undefined, 'GET', '/v2/webhooks/samples')).body.data?.[0] ?? 'none',
    SYSTEM_CONFIG_ID: async () => {
      // the page's category (its POST's body), nodes and all
      const id = unique('examples.');
      const { id: _id, ...doc } = pageBodies.system_config ?? { default: { example: true } };
      await must(token, 'POST', `/v2/system_configs/${id}`, doc);
      return id;
    },
    USERNAME: async () => {
      const username = unique('phone');
      const device = await must(token, 'PUT', `${await acc()}/devices`, { name: 'Registered', owner_id: await get('USER_ID'), sip: { username, password: 'Secret-sip-1' } });
      await must(token, 'PUT', `${await acc()}/simulations`, { kind: 'registration', device_id: device.id });
      return username;
    },
    // a fax waiting for the fax server, sent as the page sends one
    FAX_JOB_ID: async () => (await create('faxes')).id,
    C2C_ID: async () => (await create('clicktocall')).id,
    DIRECTORY_ID: async () => (await create('directories')).id,
    GROUP_ID: async () => (await create('groups')).id,
    COMMENT_ID: async () => {
      // comments are reached by position: the account's first
      await must(token, 'PUT', `${await acc()}/comments`, { comments: [{ content: 'A comment', author: 'Ann Lee', timestamp: 63_800_000_000 }] });
      return '0';
    },
    RATE_ID: async () => {
      // rates are the system's, their ids made of country and prefix: a prefix of the run's own
      const prefix = `1${String(serial++).padStart(4, '0')}${String(Date.now() % 100000).padStart(5, '0')}`;
      return (await must(token, 'PUT', '/v2/rates', { prefix, iso_country_code: 'US', description: 'Example', rate_cost: 0.1 })).id;
    },
    SCHEMA_NAME: async () => 'devices',
    // a multi-factor provider's configuration, the system's or the account's, as the page creates one
    CONFIG_ID: async () => {
      if (!example.path.startsWith('/v2/multi_factor')) return (await must(token, 'PUT', `${await acc()}/multi_factor`, pageBodies.writes['PUT /v2/accounts/{ACCOUNT_ID}/multi_factor'])).id;
      // the page's fetch of a system provider shows the system's default one
      if (example.method === 'GET') return 'duo';
      return (await must(token, 'PUT', '/v2/multi_factor', pageBodies.writes['PUT /v2/multi_factor'])).id;
    },
    PHONE_NUMBER: async () => phoneNumber(/\{PHONE_NUMBER\}(\/(port|reserve))?$/),
    PHONE_NUMBER1: async () => phoneNumber(/\/collection$/),
    PHONE_NUMBER2: async () => phoneNumber(/\/collection$/),
    PHONE_NUMBER3: async () => phoneNumber(/\/collection$/),
    // a ledger (a source service) holding one entry, the page's per-minute call
    LEDGER_ID: async () => {
      await get('LEDGER_ENTRY_ID');
      return 'per-minute-voip';
    },
    LEDGER_ENTRY_ID: async () => {
      const entry = { amount: 6, description: 'US Hollywood', source: { service: 'per-minute-voip', id: unique('call') }, usage: { type: 'voice', quantity: 3, unit: 'sec' }, period: { start: 63_900_000_000 } };
      return (await must(token, 'PUT', `${await acc()}/ledgers/debit`, entry)).id;
    },
    // a failed login of one of the account's users, as security/attempts logs it
    ATTEMPT_ID: async () => {
      if (example.file !== 'security.md') return undefined;
      const username = unique('login');
      await create('users', { username, password: 'Secret-passw0rd' });
      const name = (await call(token, 'GET', await acc())).body.data.name;
      await call(undefined, 'PUT', '/v2/user_auth', { data: { credentials: md5(`${username}:wrong-password`), account_name: name } });
      return (await call(token, 'GET', `${await acc()}/security/attempts`)).body.data?.[0]?.id;
    },
    domain: async () => {
      const domain = `${unique('wl')}.example.com`;
      await must(token, 'PUT', `${await acc()}/whitelabel`, { domain, company_name: 'Example' });
      return domain;
    },
  };
  /** A number of the account, or a new one when the example makes it (a PUT of a path `makes` matches: adds, ports in or reserves it). */
  async function phoneNumber(makes) {
    const number = `+1415556${String(serial++ % 10000).padStart(4, '0')}`;
    if (example.method !== 'PUT' || !makes.test(example.path)) await must(token, 'PUT', `${await acc()}/phone_numbers/${number}`, {});
    return number;
  }
  async function get(name) {
    if (name in values) return values[name];
    if (!makers[name]) return undefined;
    if (!made.has(name)) made.set(name, makers[name]());
    return made.get(name);
  }
  /** A body with Kazoo's lab ids replaced by the fixtures' (an `owner_id` names the example's user). */
  async function withIds(body) {
    const out = structuredClone(body);
    const walk = async (o) => {
      if (!o || typeof o !== 'object') return;
      for (const [k, v] of Object.entries(o)) {
        if (typeof v === 'string' && /^[0-9a-f]{32}$/.test(v) && ID_KEYS[k]) o[k] = await get(ID_KEYS[k]);
        else await walk(v);
      }
    };
    await walk(out);
    return out;
  }
  return { get, withIds };
}

/** The request bodies a page creates documents with (`PUT /v2/accounts/{ACCOUNT_ID}/<endpoint>`), by endpoint. */
function pageBodiesOf(examples) {
  const out = { writes: {} };
  for (const e of examples) {
    if (e.method === 'PUT' || e.method === 'POST') {
      const key = `${e.method} ${e.path}`;
      const body = e.bodyText !== undefined ? looseJson(e.bodyText) : curlBody(e.curl);
      if (!out.writes[key] && body?.data && typeof body.data === 'object') out.writes[key] = body.data;
    }
    if (e.method === 'POST' && e.path === '/v2/system_configs/{SYSTEM_CONFIG_ID}' && !out.system_config) {
      const body = e.bodyText !== undefined ? looseJson(e.bodyText) : curlBody(e.curl);
      if (body?.data) out.system_config = body.data;
    }
    const m = /^\/v2\/accounts\/\{ACCOUNT_ID\}\/([a-z_]+)$/.exec(e.path);
    if (!m || e.method !== 'PUT' || out[m[1]]) continue;
    const body = e.bodyText !== undefined ? looseJson(e.bodyText) : curlBody(e.curl);
    if (body && typeof body.data === 'object' && !Array.isArray(body.data)) out[m[1]] = body.data;
  }
  return out;
}

/**
 * What a page's example assumes was done before it (an app installed to change it, charged
 * limits): `example` matches `page METHOD path`; `run` gets the fixtures, the token and the page's
 * create bodies.
 */
const BEFORE = [
  ...[
    // a page's settings fetched after the page wrote them (the answer shows them): written first
    ['access_lists.md', 'POST', '/v2/accounts/{ACCOUNT_ID}/devices/{DEVICE_ID}/access_lists'],
    ['allotments.md', 'POST', '/v2/accounts/{ACCOUNT_ID}/allotments'],
    ['storage.md', 'PUT', '/v2/accounts/{ACCOUNT_ID}/storage'],
  ].map(([page, method, path]) => ({
    example: new RegExp(`^${page.replace('.', '\\.')} GET ${path.replace(/[{}]/g, '\\$&')}$`),
    run: async (fx, token, _example, pageBodies) => {
      const values = { ACCOUNT_ID: await fx.get('ACCOUNT_ID'), DEVICE_ID: path.includes('{DEVICE_ID}') ? await fx.get('DEVICE_ID') : undefined, UUID: await fx.get('UUID') };
      return must(token, method, fill(path, values), JSON.parse(fill(JSON.stringify(pageBodies.writes[`${method} ${path}`]), values)));
    },
  })),
  {
    // the page's number takes a CNAM: the system lets its local numbers take outside providers' features (knm_providers, local_feature_override)
    example: /^phone_numbers\.md (POST|PATCH) \/v2\/accounts\/\{ACCOUNT_ID\}\/phone_numbers\/\{PHONE_NUMBER\}$/,
    run: async (_fx, token) => must(token, 'POST', '/v2/system_configs/number_manager', { default: { local_feature_override: true } }),
  },
  {
    // the page changes and removes the settings its POST made
    example: /^security\.md (PATCH|DELETE) \/v2\/accounts\/\{ACCOUNT_ID\}\/security$/,
    run: async (fx, token, _example, pageBodies) => must(token, 'POST', `/v2/accounts/${await fx.get('ACCOUNT_ID')}/security`, pageBodies.writes['POST /v2/accounts/{ACCOUNT_ID}/security']),
  },
  {
    example: /^apps_store\.md (POST|DELETE) \/v2\/accounts\/\{ACCOUNT_ID\}\/apps_store\/\{APP_ID\}$/,
    run: async (fx, token) => must(token, 'PUT', `/v2/accounts/${await fx.get('ACCOUNT_ID')}/apps_store/${await fx.get('APP_ID')}`, { allowed_users: 'all' }),
  },
  {
    // the page's account holds the number it texts from (cb_sms validate_from/1 refuses one it does not): added by a number job
    example: /^sms\.md PUT \/v2\/accounts\/\{ACCOUNT_ID\}\/sms$/,
    run: async (fx, token, example) => {
      const acc = `/v2/accounts/${await fx.get('ACCOUNT_ID')}`;
      const job = await must(token, 'PUT', `${acc}/resources/jobs`, { numbers: [curlBody(example.curl).data.from], resource_id: await fx.get('RESOURCE_ID') });
      for (let tries = 0; tries < 100; tries++) {
        const status = (await call(token, 'GET', `${acc}/resources/jobs/${job.id}`)).body.data?.status;
        if (status === 'complete') return;
        if (status === 'failed') throw new Error(`the number job for ${example.file} failed`);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`the number job for ${example.file} did not finish`);
    },
  },
  {
    // the page's user owns a device to ring (cb_quickcall get_endpoints/3 rings the devices kz_attributes:owned_by/3 finds)
    example: /^quickcall\.md GET \/v2\/accounts\/\{ACCOUNT_ID\}\/users\/\{USER_ID\}\/quickcall\//,
    run: async (fx, token) => must(token, 'PUT', `/v2/accounts/${await fx.get('ACCOUNT_ID')}/devices`, { name: 'Desk', owner_id: await fx.get('USER_ID') }),
  },
  {
    // the page's account holds limits (the answer shows them), and trunks are charged (its 402)
    example: /^limits\.md /,
    run: async (fx, token, example) => {
      await must(token, 'POST', '/v2/system_configs/services', { default: { limits: { inbound_trunks: { rate: 6.99 } } } });
      if (example.method === 'GET') {
        await must(token, 'POST', `/v2/accounts/${await fx.get('ACCOUNT_ID')}/limits`, { twoway_trunks: 0, inbound_trunks: 0, outbound_trunks: 5, allow_prepay: true }, { accept_charges: true });
      }
    },
  },
];

/** Every placeholder a string names (`{DEVICE_ID}`). */
const placeholdersIn = (text) => [...text.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);

/** Replaces `{NAME}` placeholders in a string (a path, a body's text) with the fixtures' values. */
function fill(text, values) {
  return text.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name) => (values[name] !== undefined ? String(values[name]) : whole));
}

// --- shapes ---------------------------------------------------------------------------------

/** Envelope keys Kazoo's `api_util:create_default_resp_envelope/1` sends whatever its example shows. */
const ENVELOPE_ALWAYS = new Set(['auth_token', 'data', 'node', 'request_id', 'revision', 'status', 'timestamp', 'version', 'error', 'message']);
/** and on listings (`crossbar_view`, `crossbar_doc:handle_datamgr_success/2`) */
const LISTING_ENVELOPE = new Set(['page_size', 'start_key', 'next_start_key']);

/** A key that is a value rather than a name: a number, an id, a host name, a placeholder. */
const VALUE_KEY = /^(\+?\d+|[0-9a-f]{32}|\{[A-Z0-9_]+\}?|.*\..*)$/;
const isMap = (o) => {
  const keys = Object.keys(o);
  return keys.length > 0 && keys.filter((k) => VALUE_KEY.test(k)).length * 2 > keys.length;
};

const kindOf = (v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/**
 * Where two JSON values' shapes differ: `missing` (the example has the key, tel not), `extra` (tel
 * has it, the example not) and `kind` (object, array or scalar differ), as dotted paths. A list is
 * compared row against row: the union of the example's rows against the union of tel's.
 */
function shapeDiff(example, got, path, out) {
  const ek = kindOf(example);
  const gk = kindOf(got);
  if (ek === 'null' || gk === 'null') return out;
  const container = (k) => k === 'object' || k === 'array';
  if (container(ek) || container(gk)) {
    if (ek !== gk) {
      out.push({ what: 'kind', path, detail: `${ek} in the example, ${gk} in tel` });
      return out;
    }
  } else return out;
  if (ek === 'array') {
    const rows = (list) => list.filter((r) => kindOf(r) === 'object');
    const er = rows(example);
    const gr = rows(got);
    if (er.length === 0 || gr.length === 0) return out;
    shapeDiff(Object.assign({}, ...er), Object.assign({}, ...gr), `${path}[]`, out);
    return out;
  }
  // an object keyed by values (numbers, ids, host names) is compared as a list of its values
  if (isMap(example) || isMap(got)) {
    shapeDiff(Object.values(example), Object.values(got), `${path}{}`, out);
    return out;
  }
  for (const k of Object.keys(example)) {
    const p = path ? `${path}.${k}` : k;
    if (!(k in got)) out.push({ what: 'missing', path: p });
    else shapeDiff(example[k], got[k], p, out);
  }
  for (const k of Object.keys(got)) {
    if (!(k in example)) out.push({ what: 'extra', path: path ? `${path}.${k}` : k });
  }
  return out;
}

/** The misses of one answer against its example, the envelope's keys Kazoo always sends left aside. */
function compare(example, answer, listing) {
  const out = [];
  if (typeof answer !== 'object' || answer === null) return [{ what: 'kind', path: '', detail: 'not JSON' }];
  if (example.status !== undefined && example.status !== answer.status) {
    out.push({ what: 'status', path: 'status', detail: `${example.status}${example.error ? ` ${example.error}` : ''} in the example, ${answer.status} ${answer.error ?? ''} in tel (${JSON.stringify(answer.data)?.slice(0, 160)})` });
    return out;
  }
  for (const k of Object.keys(example)) {
    if (k === 'data') continue;
    if (!(k in answer)) out.push({ what: 'missing', path: `<envelope>.${k}` });
  }
  for (const k of Object.keys(answer)) {
    if (k in example || ENVELOPE_ALWAYS.has(k) || (listing && LISTING_ENVELOPE.has(k))) continue;
    out.push({ what: 'extra', path: `<envelope>.${k}` });
  }
  if ('data' in example) shapeDiff(example.data, answer.data, 'data', out);
  return out;
}

// --- explanations ------------------------------------------------------------------------------

/**
 * Misses that Kazoo's source decides otherwise than its example shows, or where tel differs on
 * purpose (those are in docs/kazoo-differences.md): `example` names the page and request
 * (`page METHOD path`, the path as the page writes it, `#n` for the n-th answer of a section),
 * `path` the miss (a prefix matches everything under it), `why` the reason.
 */
const DIFF = 'docs/kazoo-differences.md';
const READ_ONLY = "crossbar_doc:handle_json_success/3 adds _read_only.deleted to every deletion it answers (crossbar_doc:delete/2)";
const VIEW_FLAGS = (view) => `Kazoo's ${view} view emits flags (doc.flags || [])`;
const METADATA = 'kzd_box_message:build_metadata_object/7 stores from_user, from_realm, to_user and to_realm in the metadata fetched';
const PUBLIC_NUMBER = "knm_phone_number:to_public_json/1 answers state, used_by and features at the root, and _read_only.features as {available, settings} with carrier_module: the page's answer predates it";
const EXPLAINED = [
  ...['state', 'used_by', 'features', 'features_available', 'carrier_module'].map((field) => ({ example: 'phone_numbers.md *', path: `data._read_only.${field}`, why: PUBLIC_NUMBER })),
  ...['state', 'used_by', 'features', 'features_available', 'carrier_module'].map((field) => ({ example: 'phone_numbers.md *', path: `data.success{}[]._read_only.${field}`, why: PUBLIC_NUMBER })),
  // the source answers otherwise than its page shows
  { example: 'user_authentication.md PUT /v2/user_auth/recovery', path: 'status', why: "Kazoo's user_auth_recovery.json refuses the page's placeholder {UI_URL} (ui_url: at least 14 characters)" },
  { example: 'user_authentication.md POST /v2/user_auth/recovery', path: 'status', why: "Kazoo's user_auth_recovery_reset.json refuses the page's placeholder {RESET_ID} (reset_id: 40 to 250 hex digits)" },
  { example: 'search.md GET /v2/accounts/{ACCOUNT_ID}/search', path: '<envelope>.start_key', why: "the page's account had a descendant named nat, the replay's has none: an empty page has no first row to start from" },
  { example: 'search.md GET /v2/accounts/{ACCOUNT_ID}/search/multi', path: 'status', why: "the page's curl writes /accounts/{ID}/v2/search/multi (the version after the account), so no query is sent: without t, cb_search validate_multi/2 answers 400" },
  { example: 'allotments.md GET /v2/accounts/{ACCOUNT_ID}/allotments/consumed', path: 'status', why: 'cb_allotments load_allotments/1 answers 400 for an account given no allotments: the page\'s account had some, the replay\'s has none' },
  { example: 'apps_link.md GET /v2/accounts/{ACCOUNT_ID}/apps_link/authorize', path: 'data.auth_token.owner_id', why: "cb_apps_link auth_info/1 takes owner_id from the token: the replay logs in with an API key, whose token has no user" },
  { example: 'apps_link.md GET /v2/accounts/{ACCOUNT_ID}/apps_link/authorize', path: 'data.auth_token.created', why: "cb_apps_link auth_info/1 adds created (kz_doc:created/1 of the token)" },
  { example: 'accounts.md DELETE /v2/accounts/{ACCOUNT_ID}', path: 'data', why: 'cb_accounts delete/2 answers the stored document through crossbar_doc:handle_datamgr_success/2: _read_only.deleted, no leak_pvt_fields/2' },
  { example: 'accounts.md GET /v2/accounts/{ACCOUNT_ID}/children', path: 'data[].tree', why: "Kazoo's accounts/listing_by_children view emits no tree" },
  { example: 'accounts.md GET /v2/accounts/{ACCOUNT_ID}/children', path: 'data[].descendants_count', why: "Kazoo's accounts/listing_by_children view emits descendants_count" },
  { example: 'accounts.md *', path: 'data[].flags', why: VIEW_FLAGS('accounts listing_by_children / listing_by_descendants') },
  { example: 'devices.md GET /v2/accounts/{ACCOUNT_ID}/devices', path: 'data[].flags', why: VIEW_FLAGS('devices/crossbar_listing') },
  { example: 'voicemail.md GET /v2/accounts/{ACCOUNT_ID}/vmboxes', path: 'data[].flags', why: VIEW_FLAGS('vmboxes/crossbar_listing') },
  { example: 'queues.md GET /v2/accounts/{ACCOUNT_ID}/queues', path: 'data[].strategy', why: "acdc's queues/crossbar_listing view emits strategy" },
  { example: 'devices.md *', path: 'data.sip.registration_expiration', why: "Kazoo's devices schema names it sip.expire_seconds now (default 300): the example predates the rename" },
  { example: '*', path: 'data._read_only', what: 'extra', why: READ_ONLY },
  { example: 'apps_store.md POST /v2/accounts/{ACCOUNT_ID}/apps_store/{APP_ID}', path: 'data.name', why: "cb_apps_store prepare_update/2 stores the app's name with what is sent, and post/2 answers that" },
  { example: 'auth.md *', path: '<envelope>.page_size', why: 'cb_auth send_token_info/3 answers one object, no listing: no page_size' },
  { example: 'auth.md *', path: 'data.is_reseller', why: 'crossbar_util:response_auth/3 (populate_resp/3) adds is_reseller' },
  { example: '*', path: 'data.is_master_account', why: 'crossbar_util:response_auth/3 (populate_resp/3) adds is_master_account' },
  { example: 'user_authentication.md PUT /v2/user_auth', path: 'data.account_name', why: 'crossbar_util:response_auth/3 (populate_resp/3) adds account_name' },
  { example: 'limits.md GET /v2/accounts/{ACCOUNT_ID}/limits', path: 'data.allow_postpay', why: 'cb_limits leak_pvt_fields/1 adds allow_postpay to a stored record' },
  { example: 'limits.md GET /v2/accounts/{ACCOUNT_ID}/limits', path: 'data.max_postpay_amount', why: 'cb_limits leak_pvt_fields/1 adds max_postpay_amount to a stored record' },
  { example: 'registrations.md GET /v2/accounts/{ACCOUNT_ID}/registrations', path: 'data[]', what: 'extra', why: "ecallmgr_registrar to_props/1 sends them (proxy_protocol, register_overwrite_notify, first/initial/last_registration, source_ip/port); the page's phone's registrar lacked some" },
  { example: 'voicemail.md *', path: 'data.from_user', why: METADATA },
  { example: 'voicemail.md *', path: 'data.from_realm', why: METADATA },
  { example: 'voicemail.md *', path: 'data.to_user', why: METADATA },
  { example: 'voicemail.md *', path: 'data.to_realm', why: METADATA },
  { example: 'voicemail.md POST /v2/accounts/{ACCOUNT_ID}/vmboxes/{VM_BOX_ID}/messages', path: 'data.failed', what: 'kind', why: "kvm_messages bulk_result/1 answers failed as an object by message id (kz_json:from_list/1)" },
  { example: 'voicemail.md DELETE /v2/accounts/{ACCOUNT_ID}/vmboxes/{VM_BOX_ID}/messages', path: 'data.failed', why: 'kvm_messages bulk_result/1 leaves failed out when nothing failed (props:filter_empty/1): the page named a message that was gone' },
  { example: '*', path: '<envelope>.next_start_key', why: 'crossbar_view sends next_start_key only when more rows follow: the page listed more than one page' },
  { example: 'whitelabeling.md *', path: 'data.CNAM', why: "Kazoo's domains schema and kzd_domains' default fixture spell CNAME: the page's CNAM is a typo of its" },
  { example: 'whitelabeling.md *', path: 'data.CNAME', why: "Kazoo's domains schema and kzd_domains' default fixture spell CNAME" },
  { example: 'whitelabeling.md POST /v2/accounts/{ACCOUNT_ID}/whitelabel/domains', path: 'data', what: 'extra', why: 'cb_whitelabel test_host/4 answers each host with its name' },
  { example: 'directories.md GET /v2/accounts/{ACCOUNT_ID}/directories', path: 'data[].flags', why: VIEW_FLAGS('directories/crossbar_listing') },
  { example: 'groups.md GET /v2/accounts/{ACCOUNT_ID}/groups', path: 'data[].flags', why: VIEW_FLAGS('groups/crossbar_listing') },
  { example: 'comments.md GET /v2/accounts/{ACCOUNT_ID}/comments', path: 'data', why: 'cb_comments summary/1 answers {comments: [...]} (only_return_comments/1): the page writes {COMMENT} for it' },
  { example: 'comments.md DELETE /v2/accounts/{ACCOUNT_ID}/comments', path: 'data', why: 'cb_comments delete/1 answers what is left, {comments: []} (only_return_comments/1)' },
  { example: 'comments.md GET /v2/accounts/{ACCOUNT_ID}/comments/{COMMENT_ID}', path: 'data', why: 'cb_comments read/2 answers the comment itself (only_return_comment/2), not the list' },
  { example: 'comments.md POST /v2/accounts/{ACCOUNT_ID}/comments/{COMMENT_ID}', path: 'status', why: "the page's body {COMMENT} stands for a comment (an object, comment.json): the string it sends is refused" },
  { example: 'rates.md GET /v2/rates', path: 'data[].surcharge', why: "Kazoo's rates/crossbar_listing view emits surcharge from rate_surcharge, which the page's rate had set (rates.json fills no default)" },
  ...['rate_increment', 'rate_minimum', 'rate_nocharge_time', 'rate_surcharge'].map((field) => ({
    example: 'rates.md *',
    path: `data.${field}`,
    why: "cb_rates on_successful_validation/2 sets only pvt_type and routes, and rates.json fills none: the page's rate had them set",
  })),
  { example: 'rates.md DELETE /v2/rates/{RATE_ID}', path: 'data.routes', what: 'extra', why: "cb_rates ensure_routes_set/1 gives every rate routes when it is created: the page's deleted rate shows none" },
  { example: 'temporal_rules.md PUT /v2/accounts/{ACCOUNT_ID}/temporal_rules', path: 'data.id', why: "crossbar_doc:save/1 answers the saved document's public fields, its id among them (kz_doc:public_fields/1): the page's answer leaves it out" },
  { example: 'faxes.md GET /v2/accounts/{ACCOUNT_ID}/faxes/outgoing', path: 'data[].attempts', why: "Kazoo's fax application's faxes/list_by_account view emits attempts" },
  { example: 'faxes.md GET /v2/accounts/{ACCOUNT_ID}/faxes/outgoing/{FAX_JOB_ID}', path: 'data.delivered', why: "cb_faxes get_delivered_date/1 answers undefined for a job not delivered, which kz_json:set_value/3 leaves out: the page's \"undefined\" is an older kz_json's" },
  { example: 'presence.md GET /v2/accounts/{ACCOUNT_ID}/presence', path: 'data.timeout', why: 'cb_presence process_responses/3 sets timeout: null when every presence server answered, true when one did not' },
  { example: 'quickcall.md *', path: 'data.custom_application_vars', why: "cb_quickcall originate_quickcall/3 sends Custom-Application-Vars (cb_modules_util:cavs_from_context/1), {} when the request names none" },
  { example: 'registrations.md GET /v2/accounts/{ACCOUNT_ID}/registrations', path: '<envelope>.page_size', why: 'cb_registrations validate/1 answers through crossbar_util:response/2, which sets no page_size (no crossbar_view)' },
  { example: 'sms.md PUT /v2/accounts/{ACCOUNT_ID}/sms', path: 'data.account_id', what: 'extra', why: 'cb_sms create_request/1 sets Account-ID on the request put/1 answers (kz_api:remove_defaults/1 keeps it)' },
  { example: 'ledgers.md GET /v2/accounts/{ACCOUNT_ID}/ledgers/{LEDGER_ID}?created_from=11111111&created_to=22222222', path: 'status', why: "crossbar_view:time_range/5 refuses a window wider than crossbar.maximum_range (31 days and an hour): the page's 11111111 to 22222222 spans 128 days" },
  ...['metadata', 'executor', 'audit'].map((field) => ({
    example: 'ledgers.md GET /v2/accounts/{ACCOUNT_ID}/ledgers/{LEDGER_ID}/{LEDGER_ENTRY_ID}',
    path: `data.${field}`,
    what: 'extra',
    why: 'cb_ledgers put/2 stores metadata, audit and executor with every credit and debit (kz_ledger:set_metadata/2, set_audit/2, set_executor_trigger/2)',
  })),
  { example: 'security.md GET /v2/security', path: 'data', why: 'cb_security summary_available/1 answers available_auth_methods (?AVAILABLE_AUTH_METHODS): the page names it available_auth_modules' },
  { example: 'phone_numbers.md GET /v2/phone_numbers?prefix={PREFIX}&quantity={QUANTITY}&offset={OFFSET}&country={COUNTRY}', path: 'data[]', why: "knm_search:next/1 answers each number found as {number, state}, as the account's search shows: the page's rows are an older carrier module's" },
  { example: 'phone_numbers.md *', path: 'data.error', what: 'extra', why: 'cb_phone_numbers set_response/3 answers a collection\'s error beside its success, empty when none failed' },
  { example: 'phone_numbers.md GET /v2/accounts/{ACCOUNT_ID}/phone_numbers/classifiers', path: 'data.emergency.emergency', what: 'extra', why: "knm_converters' default emergency classifier is marked emergency: true" },
  { example: 'phone_numbers.md POST /v2/accounts/{ACCOUNT_ID}/phone_numbers/fix/{PHONE_NUMBER}', path: 'data', why: 'cb_phone_numbers post/3 answers {} for a fix of one number (crossbar_util:response(kz_json:new(), Context)): the page shows the number' },
  // the page's own data, not a shape
  ...['used_by', 'features', 'cnam', 'my_own_field'].map((field) => ({
    example: 'phone_numbers.md *',
    path: `data.${field}`,
    what: 'missing',
    why: "the page's number was given a cnam, features and my_own_field by the page's earlier requests, and a callflow used it; to_public_json/1 leaves empty features and used_by out (props:filter_empty/1)",
  })),
  { example: 'security.md GET /v2/accounts/{ACCOUNT_ID}/security', path: 'data.inherited_config.auth_modules.cb_user_auth.multi_factor', why: "the page's system or parent accounts set a multi-factor login for cb_user_auth (crossbar_auth:get_inherited_config/1 answers what they set); system_config.crossbar.auth's default sets none, nor does the replay" },
  { example: 'configs.md *', path: 'data', what: 'missing', why: "the page's account inherits its system's conferences settings (cb_configs merges the system's default node); the lab's system holds none" },
  { example: 'ledgers.md GET /v2/accounts/{ACCOUNT_ID}/ledgers', path: 'data', why: `ledgers are keyed by the sources that billed the page's account; tel bills nothing (${DIFF})` },
  { example: '*', path: 'data.ui_metadata', what: 'missing', why: "the page's document was saved by Monster UI (ui_metadata is kept when sent)" },
  { example: 'schemas.md GET /v2/schemas/{SCHEMA_NAME}', path: 'data', why: `the page fetches acls (the switch's ACL entries), a schema tel has not: tel answers its own schemas, here devices' (${DIFF})` },
  { example: 'storage.md GET /v2/accounts/{ACCOUNT_ID}/storage', path: 'data.attachments{}[].settings', why: "the page's fetch shows an S3 handler's settings, its create an HTTP server's (storage.attachment.http.json fills base64_encode_data, default false)" },
  { example: 'media.md PUT /v2/accounts/{ACCOUNT_ID}/media', path: 'data.tts.text', why: "the page's one answer is its prompt request's, shown after its TTS request: a TTS document keeps its text" },
  { example: 'voicemail.md *', path: 'data.transcription', why: `the page's message was transcribed; tel transcribes nothing (${DIFF})` },
  // tel differs on purpose: docs/kazoo-differences.md
  { example: 'system_status.md GET /v2/system_status', path: 'data', why: `the page's cluster has two zones of several nodes; tel is one node, in zone local (${DIFF})` },
  { example: 'about.md *', path: 'data', why: DIFF },
  { example: 'apps_store.md POST /v2/accounts/{ACCOUNT_ID}/apps_store/{APP_ID}', path: 'data.users', why: DIFF },
  { example: 'auth.md *', path: 'data', what: 'extra', why: DIFF },
  { example: 'user_authentication.md PUT /v2/user_auth', path: 'data', what: 'extra', why: DIFF },
  { example: 'resources.md *', path: 'data', what: 'extra', why: `the specification's resource and job shapes (${DIFF})` },
  { example: 'system_configs.md *', path: 'data', why: `a system category is answered as stored, every node whole (${DIFF})` },
  { example: 'webhooks.md GET /v2/webhooks', path: 'data[].modifiers', why: `the notifications hook's type modifier lists the notifications tel sends (${DIFF})` },
  { example: '*', path: '<envelope>.tokens', what: 'missing', why: `Kazoo's per-account request bucket; tel meters no requests (${DIFF})` },
  { example: 'multi_factor.md GET /v2/accounts/{ACCOUNT_ID}/multi_factor/attempts/{ATTEMPT_ID}', path: 'status', why: `tel asks no second factor at login, so it logs no multi-factor attempt to fetch (${DIFF})` },
  { example: 'security.md GET /v2/accounts/{ACCOUNT_ID}/security/attempts/{ATTEMPT_ID}', path: 'data.client_headers', why: `a login attempt keeps of the request's headers only user-agent (${DIFF})` },
  { example: 'security.md GET /v2/accounts/{ACCOUNT_ID}/security/attempts/{ATTEMPT_ID}', path: 'data.metadata', why: `a login attempt keeps not the request's document (${DIFF})` },
  { example: 'sms.md PUT /v2/accounts/{ACCOUNT_ID}/sms', path: 'data.id', what: 'extra', why: `the stored message's id, to fetch it by (${DIFF})` },
  { example: 'quickcall.md *', path: 'data.endpoints[]', what: 'missing', why: `a quickcall's endpoints are the simulated switch's: no codecs, presence, SIP headers nor the channel variables kz_endpoint:build/3 adds for a switch (${DIFF})` },
];

/** Kazoo's schema of the documents an endpoint answers, by endpoint (the file's name). */
const SCHEMA_OF = {
  accounts: 'accounts',
  move: 'accounts',
  users: 'users',
  devices: 'devices',
  callflows: 'callflows',
  vmboxes: 'vmboxes',
  faxboxes: 'faxbox',
  media: 'media',
  queues: 'queues',
  resources: 'resources',
  limits: 'limits',
  webhooks: 'webhooks',
  whitelabel: 'whitelabel',
};

const schemas = new Map();
function kazooSchema(name) {
  if (!schemaDir) return undefined;
  if (!schemas.has(name)) {
    const file = join(schemaDir, `${name}.json`);
    schemas.set(name, existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
  }
  return schemas.get(name);
}

/** A schema with its `$ref` (Kazoo's name a file) merged in. */
function deref(sc) {
  if (!sc || typeof sc !== 'object' || !sc.$ref) return sc;
  const { $ref, ...rest } = sc;
  return { ...deref(kazooSchema($ref.replace(/\.json$/, '').replace(/^#\/definitions\//, ''))), ...rest };
}

/** The part of a schema at a dotted path of a document, if the schema names it. */
function schemaAt(schema, path) {
  let sc = deref(schema);
  for (const key of path) {
    sc = deref(sc?.properties?.[key]);
    if (!sc) return undefined;
  }
  return sc;
}

/** The Kazoo schema of the document an example answers (`…/devices`, `…/devices/{ID}`), with its name. */
function documentSchemaOf(example) {
  const segs = segmentsOf(example.path);
  const last = segs[segs.length - 1];
  const endpoint = isPlaceholder(last) ? segs[segs.length - 2] : last;
  if (segs.length > 1 && isPlaceholder(last) && segs[segs.length - 2] === 'accounts') return { name: 'accounts', schema: kazooSchema('accounts') };
  const name = SCHEMA_OF[endpoint];
  return name ? { name, schema: kazooSchema(name) } : undefined;
}

/**
 * Kazoo's schema decides a document's defaults (jesse fills them when it validates, and a crossbar
 * module answers what it stored): a key tel answers that the example lacks is Kazoo's when its
 * schema fills it today; a key the example shows that its schema neither fills nor the request
 * sent was set on the example's document.
 */
function bySchema(example, miss, sent) {
  if (miss.what === 'kind' || miss.what === 'status' || !miss.path.startsWith('data.') || miss.path.includes('[]') || miss.path.includes('{}')) return undefined;
  const doc = documentSchemaOf(example);
  if (!doc?.schema) return undefined;
  const path = miss.path.slice('data.'.length).split('.');
  const sc = schemaAt(doc.schema, path);
  if (!sc) return undefined;
  const where = `Kazoo's schema ${doc.name}.json`;
  if (miss.what === 'extra' && sc.default !== undefined) return `${where} fills ${path.join('.')} (default ${JSON.stringify(sc.default)}): the example predates it`;
  let v = sent;
  for (const k of path) v = v && typeof v === 'object' ? v[k] : undefined;
  if (miss.what === 'missing' && sc.default === undefined && v === undefined) return `${where} does not fill ${path.join('.')}: the example's document had it set`;
  return undefined;
}

function explanationOf(example, miss, sent) {
  const id = `${example.file} ${example.method} ${example.path}`;
  const listed = EXPLAINED.find(
    (e) =>
      (e.example === id || e.example === `${id} #${example.index}` || e.example === `${example.file} *` || e.example === '*') &&
      (e.what === undefined || e.what === miss.what) &&
      (e.path === miss.path || miss.path.startsWith(`${e.path}.`) || miss.path.startsWith(`${e.path}[]`) || miss.path.startsWith(`${e.path}{}`)),
  );
  return listed?.why ?? bySchema(example, miss, sent);
}

// --- the run --------------------------------------------------------------------------------------

async function main() {
  const server = opts.url ? { url: opts.url, apiKey: opts.apiKey, stop() {} } : await startEphemeralTel();
  base = server.url;
  const results = [];
  const skipped = [];
  try {
    // the simulated carrier offers numbers of 415 (phone_numbers.md searches them): added to the pool as a lab's owner adds them
    if (server.db) execFileSync(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), '../bin/tel.js'), '--db', server.db, 'numbers', 'pool', 'add', '+14155550100', '--count', '10'], { stdio: 'ignore' });
    const login = await call(undefined, 'PUT', '/v2/api_auth', { data: { api_key: server.apiKey } });
    if (login.status !== 201 && login.status !== 200) throw new Error(`api_auth answered ${login.status}`);
    const master = login.body.data.account_id;
    const masterDoc = (await call(login.body.auth_token, 'GET', `/v2/accounts/${master}`)).body.data;
    const env = { master, apiKey: server.apiKey, username: server.username, password: server.password, accountName: masterDoc.name, realm: masterDoc.realm };
    const routes = routesOf((await call(undefined, 'GET', '/v2/openapi.json')).body);
    const files = readdirSync(docDir)
      .filter((f) => f.endsWith('.md') && (!opts.only || f === opts.only))
      .sort();
    for (const file of files) {
      const examples = examplesOf(file);
      const pageBodies = pageBodiesOf(examples);
      for (const example of examples) {
        if (example.answerTexts.length === 0 || !served(routes, example.method, example.path)) continue;
        const answers = example.answerTexts.map(looseJson);
        const body = example.bodyText !== undefined ? (looseJson(example.bodyText) ?? null) : curlBody(example.curl);
        if (answers.includes(undefined) || body === null) {
          skipped.push({ example, why: body === null ? 'its request body is not JSON' : 'its answer is not JSON' });
          continue;
        }
        // a token of its own: an example may revoke the token it is sent with (DELETE token_auth)
        const own = await call(undefined, 'PUT', '/v2/api_auth', { data: { api_key: server.apiKey } });
        const fx = fixtures({ ...env, token: own.body.auth_token }, pageBodies, example);
        const query = queryOf(example);
        const wanted = new Set([...placeholdersIn(example.path), ...placeholdersIn(query), ...placeholdersIn(example.curl)]);
        // a listing is seeded with one document of what it lists
        const segs = segmentsOf(example.path);
        const last = segs[segs.length - 1];
        if ((example.method === 'GET' || last === 'domains' || last === 'messages') && PLACEHOLDER_OF[last]) wanted.add(PLACEHOLDER_OF[last]);
        const values = {};
        for (const name of wanted) values[name] = await fx.get(name);
        for (const b of BEFORE) if (b.example.test(`${example.file} ${example.method} ${example.path}`)) await b.run(fx, own.body.auth_token, example, pageBodies);
        const path = fill(example.path.split('?')[0], values).replace(/\/$/, '');
        // "MSG_ID1" in a body names the fixture's message (the others name none: they fail)
        if (/"MSG_ID1"/.test(JSON.stringify(body ?? {}))) values.VM_MSG_ID ??= await fx.get('VM_MSG_ID');
        let sent =
          body === undefined
            ? undefined
            : JSON.parse(fill(JSON.stringify(body), values).replace(/"\[md5\|sha\]"/g, '"md5"').replace(/"MSG_ID1"/g, JSON.stringify(values.VM_MSG_ID ?? 'MSG_ID1')));
        if (sent?.data && typeof sent.data === 'object') {
          sent = { ...sent, data: await fx.withIds(sent.data) };
          // account names are unique: each example names its own
          if (/^\/v2\/accounts(\/[0-9a-f]{32})?$/.test(path) && typeof sent.data.name === 'string') sent.data.name = unique(`${sent.data.name} `);
        }
        const auth = example.method === 'PUT' && /^\/v2\/(api_auth|user_auth)$/.test(path) ? undefined : values.AUTH_TOKEN ?? (await fx.get('AUTH_TOKEN'));
        const filled = fill(query, values);
        const answer = await call(auth, example.method, `${path}${filled ? `?${filled}` : ''}`, sent);
        // of several answers shown, the one with tel's status (success, or the same error) is compared
        const got = answer.body;
        const expected = answers.find((a) => a.status === got?.status && (a.error ?? '') === (got?.error ?? '')) ?? answers[0];
        const listing = Array.isArray(expected.data);
        const misses = compare(expected, got, listing).map((m) => ({ ...m, explained: explanationOf(example, m, sent?.data) }));
        results.push({ example, status: answer.status, misses });
      }
    }
  } finally {
    server.stop();
  }
  report(results, skipped);
}

function report(results, skipped) {
  const name = (e) => `${e.file} ${e.method} ${e.path}${e.index ? ` #${e.index}` : ''}`;
  const matched = results.filter((r) => r.misses.length === 0).length;
  const explained = results.filter((r) => r.misses.length > 0 && r.misses.every((m) => m.explained)).length;
  const open = results.filter((r) => r.misses.some((m) => !m.explained));
  if (opts.json) {
    console.log(JSON.stringify({ matched, of: results.length, explained, unexplained: open.length, results: results.map((r) => ({ example: name(r.example), status: r.status, misses: r.misses })), skipped: skipped.map((s) => ({ example: name(s.example), why: s.why })) }, null, 2));
  } else {
    console.log(`${matched} of ${results.length} match`);
    console.log(`${explained} more differ where Kazoo's source or docs/kazoo-differences.md says so; ${open.length} differ unexplained; ${skipped.length} examples skipped (not JSON)`);
    for (const r of results) {
      const shown = r.misses.filter((m) => opts.verbose || !m.explained);
      if (shown.length === 0) continue;
      console.log(`\n${name(r.example)} (tel answered ${r.status})`);
      for (const m of shown) console.log(`  ${m.what} ${m.path}${m.detail ? `: ${m.detail}` : ''}${m.explained ? `  [${m.explained}]` : ''}`);
    }
    if (opts.verbose) for (const s of skipped) console.log(`skipped ${name(s.example)}: ${s.why}`);
  }
  process.exitCode = open.length > 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

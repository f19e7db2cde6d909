#!/usr/bin/env node
// How faithfully tel takes Kazoo's documents, measured against Kazoo's own JSON Schemas.
//
//   node scripts/kazoo-documents.mjs KAZOO_CHECKOUT [--per-kind 30] [--seed 1] [--url URL --api-key KEY] [--verbose] [--json]
//
// KAZOO_CHECKOUT is a checkout of github:2600hz/kazoo (or its applications/crossbar/priv/couchdb/schemas
// directory). For each document kind tel serves, documents are generated from Kazoo's schema for it
// (seeded, so runs repeat) and sent to a tel server — `tel serve --ephemeral` started for the run, or
// the one at --url — and three things are counted:
//   valid      documents valid per Kazoo's schema (within the seed's narrower enums) that tel accepts (2xx);
//   broken     the same documents with one field broken (wrong type, value out of an enum, over a bound),
//              refused with 400 naming that field and rule as Kazoo does ({field: {rule: {message…}}});
//   defaults   defaults Kazoo fills (a default with a type it matches; nested ones inside defaults and
//              inside objects sent) present in the answer of a create that sends only the required fields.
// --verbose prints every miss. A developer's tool: CI has no Kazoo checkout.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startEphemeralTel } from './lib/ephemeral-tel.mjs';

function usage(message) {
  if (message) console.error(message);
  console.error('usage: node scripts/kazoo-documents.mjs KAZOO_CHECKOUT [--per-kind 30] [--seed 1] [--url URL --api-key KEY] [--verbose] [--json]');
  process.exit(2);
}

const args = process.argv.slice(2);
const opts = { perKind: 30, seed: 1, verbose: false, json: false };
let checkout;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--per-kind') opts.perKind = Number(args[++i]);
  else if (a === '--seed') opts.seed = Number(args[++i]);
  else if (a === '--url') opts.url = args[++i];
  else if (a === '--api-key') opts.apiKey = args[++i];
  else if (a === '--verbose') opts.verbose = true;
  else if (a === '--json') opts.json = true;
  else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else checkout = a;
}
if (!checkout) usage();
const schemaDir = [join(checkout, 'applications/crossbar/priv/couchdb/schemas'), checkout].find((d) => existsSync(join(d, 'users.json')));
if (!schemaDir) usage(`no Kazoo schemas under ${checkout}`);

const cache = new Map();
function load(name) {
  if (!cache.has(name)) cache.set(name, JSON.parse(readFileSync(join(schemaDir, `${name}.json`), 'utf8')));
  return cache.get(name);
}

/** A schema with its `$ref` (Kazoo's refs name a file) merged in. */
function deref(s) {
  if (!s || typeof s !== 'object' || !s.$ref) return s;
  const { $ref, ...rest } = s;
  return { ...deref(load($ref.replace(/\.json$/, ''))), ...rest };
}

// --- seeded randomness -----------------------------------------------------------------------
let state = 0;
function rand() {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(rand() * list.length)];
const int = (min, max) => min + Math.floor(rand() * (max - min + 1));
const chance = (p) => rand() < p;
let serial = 0;
const unique = (prefix) => `${prefix}${Date.now().toString(36)}${(serial++).toString(36)}${int(0, 1e6).toString(36)}`;
const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
const digits = (n) => Array.from({ length: n }, () => String(int(0, 9))).join('');
const word = (min, max) => {
  const n = int(Math.max(min, 1), Math.max(min, Math.min(max, 12)));
  return Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[int(0, 35)]).join('').slice(0, max);
};

// --- what tel narrows (the seed and tel's contract win there) ---------------------------------
/** What special() answers for a field the generator leaves out. */
const SKIP = Symbol('skip');
const HOOKS = ['channel_create', 'channel_answer', 'channel_bridge', 'channel_destroy', 'parking', 'notifications'];
const CALLFLOW_MODULES = ['device', 'user', 'voicemail', 'play', 'answer', 'hangup', 'park', 'noop'];
const METAFLOW_MODULES = ['hold', 'hangup', 'transfer', 'resume', 'break'];

/** A value the generator must choose itself (unique in the account, a narrower enum, a reference). */
function special(kind, path, s) {
  const key = path[path.length - 1];
  const at = path.join('.');
  if (kind === 'webhooks' && at === 'hook') return pick(HOOKS);
  // the seed's voipapp_* in place of Kazoo's skype_*
  if (kind === 'resources' && key === 'skype_interface') return SKIP;
  if (kind === 'resources' && key === 'skype_rr') return SKIP;
  if (kind === 'resources' && /^gateways\.\d+\.endpoint_type$/.test(at)) return pick(['sip', 'freetdm', 'amqp']);
  if (s['kazoo-validation'] && key === 'module') return pick(kind === 'metaflows' || path.some((k) => k === 'metaflows' || k === 'metaflow') ? METAFLOW_MODULES : CALLFLOW_MODULES);
  if (s['kazoo-validation'] && key === 'data') return {};
  if (s['kazoo-validation'] && s.type === 'string') return `http://example.com/${word(1, 8)}`;
  if (s['kazoo-regexp']) return `^${word(1, 6)}@example\\.com$`;
  if (kind === 'accounts' && at === 'name') return unique('Account ');
  if (kind === 'accounts' && at === 'realm') return `${unique('r')}.example.com`;
  if (kind === 'users' && at === 'username') return unique('user');
  if (kind === 'users' && at === 'hotdesk.id') return digits(int(6, 12));
  if (kind === 'vmboxes' && at === 'mailbox') return digits(int(6, 12));
  if (kind === 'callflows' && /^numbers\.\d+$/.test(at)) return `+1${digits(10)}`;
  if (kind === 'callflows' && /^patterns\.\d+$/.test(at)) return `^${unique('p')}$`;
  if (kind === 'devices' && at === 'mac_address') return hex(12);
  if (kind === 'devices' && at === 'sip.username') return unique('sip').slice(0, 32);
  if (kind === 'devices' && at === 'sip.ip') return `10.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`;
  if (kind === 'faxboxes' && at === 'custom_smtp_email_address') return `${unique('fax')}@example.com`;
  if (kind === 'whitelabel' && at === 'domain') return `${unique('ui')}.example.com`;
  if (kind === 'conferences' && /^(conference_numbers|member\.numbers|moderator\.numbers)\.\d+$/.test(at)) return digits(int(8, 14));
  if (kind === 'rates' && at === 'prefix') return int(100_000, 999_999_999);
  if (key === 'owner_id' || key === 'source_id' || key === 'media_id' || /^[a-f0-9]{32}$/.test(key ?? '')) return undefined;
  return undefined;
}

/** What Kazoo asks of a document beyond its schema, so that a document valid by the schema is one Kazoo takes. */
function complete(kind, doc) {
  // Kazoo refuses a callflow with neither a number nor a pattern
  if (kind === 'callflows' && !doc.numbers?.length && !doc.patterns?.length) doc.numbers = [`+1${digits(10)}`];
  return doc;
}

/** A string matching one of the patterns Kazoo's schemas use. */
function forPattern(pattern, s) {
  if (pattern === '^[.\\w-]+$' || pattern === '^[.\\w_-]+$') return `${word(4, 10)}.example.com`;
  if (pattern === '^([+@.\\w_-]+)$') return word(Math.max(s.minLength ?? 1, 1), 20);
  if (pattern === '^https?://') return `https://example.com/${word(1, 8)}`;
  if (pattern === '^[0-9]+$') return digits(int(Math.max(s.minLength ?? 1, 1), 8));
  if (pattern.startsWith('custom_channel_vars')) return `custom_channel_vars.${word(1, 8)}`;
  if (pattern.startsWith('custom_sip_headers')) return `custom_sip_headers.${word(1, 8)}`;
  return undefined;
}

function keyFor(pattern) {
  if (pattern === '^[0-9]+$') return digits(int(1, 3));
  if (pattern === '^[a-zA-Z0-9]{32}$') return hex(32);
  if (pattern === '^[a-zA-z0-9_\\-]+$') return `X-${word(2, 8)}`;
  return word(2, 8);
}

/** A document valid per `schema`: required fields always, others half the time (fewer when deep). */
function generate(kind, schema, path = [], depth = 0) {
  let s = deref(schema);
  const chosen = special(kind, path, s);
  if (chosen !== undefined) return chosen;
  const branches = s.oneOf ?? s.anyOf;
  if (branches) {
    const { oneOf: _o, anyOf: _a, ...rest } = s;
    s = { ...rest, ...deref(branches[0]) };
  }
  if (s.enum) return pick(s.enum);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type ?? (s.properties ? 'object' : undefined);
  switch (type) {
    case 'string': {
      if (s.format === 'email') return `${word(1, 8)}@example.com`;
      if (s.format === 'uri') return `http://example.com/${word(1, 8)}`;
      if (s.pattern) {
        const v = forPattern(s.pattern, s);
        if (v !== undefined) return v;
      }
      const min = s.minLength ?? 1;
      const max = s.maxLength ?? Math.max(min, 12);
      if (min === max) return hex(min);
      return word(min, max);
    }
    case 'integer': {
      const min = s.minimum ?? 0;
      return int(min, s.maximum ?? min + 100);
    }
    case 'number': {
      const min = s.minimum ?? 0;
      return int(min, s.maximum ?? min + 100) + (chance(0.5) ? 0.5 : 0);
    }
    case 'boolean':
      return chance(0.5);
    case 'array': {
      const n = depth > 3 ? s.minItems ?? 0 : int(s.minItems ?? 0, Math.max(s.minItems ?? 0, 2));
      const out = [];
      for (let i = 0; i < n; i++) {
        const v = generate(kind, s.items ?? { type: 'string' }, [...path, String(i)], depth + 1);
        if (!s.uniqueItems || !out.some((x) => isDeepStrictEqual(x, v))) out.push(v);
      }
      return out;
    }
    case 'object': {
      const out = {};
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        if (required.has(k) || (depth < 4 && chance(depth === 0 ? 0.5 : 0.35))) {
          const v = generate(kind, sub, [...path, k], depth + 1);
          if (v !== SKIP) out[k] = v;
        }
      }
      if (depth < 3) {
        for (const [pattern, sub] of Object.entries(s.patternProperties ?? {})) {
          if (chance(0.3)) {
            const k = keyFor(pattern);
            out[k] = generate(kind, sub, [...path, k], depth + 1);
          }
        }
        if (s.additionalProperties && typeof s.additionalProperties === 'object' && chance(0.3)) {
          const k = word(2, 8);
          out[k] = generate(kind, s.additionalProperties, [...path, k], depth + 1);
        }
      }
      return out;
    }
    default:
      return word(1, 8);
  }
}

/**
 * The schema of `path` in `schema` (following properties, pattern and additional properties, items);
 * undefined under a `oneOf` or `anyOf`, where Kazoo names the field that matched no branch instead.
 */
function schemaAt(schema, path) {
  let s = deref(schema);
  for (const key of path) {
    if (s.oneOf || s.anyOf) return undefined;
    if (s.properties?.[key]) s = deref(s.properties[key]);
    else if (s.items && /^\d+$/.test(key)) s = deref(s.items);
    else {
      const pp = Object.entries(s.patternProperties ?? {}).find(([p]) => new RegExp(p.replace('[:alnum:]', 'A-Za-z0-9')).test(key));
      if (pp) s = deref(pp[1]);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') s = deref(s.additionalProperties);
      else return undefined;
    }
  }
  return s;
}

function leaves(value, path = [], out = []) {
  out.push(path);
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...path, String(i)], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  return out;
}

function setAt(doc, path, value) {
  let o = doc;
  for (const k of path.slice(0, -1)) o = o[k];
  o[path[path.length - 1]] = value;
}

/** One field of `doc` broken so that Kazoo refuses it: the path, the broken value and the rule expected. */
function breakOne(kind, schema, doc) {
  const candidates = [];
  for (const path of leaves(doc)) {
    if (path.length === 0) continue;
    const s = schemaAt(schema, path);
    if (!s || s.oneOf || s.anyOf || s['kazoo-validation'] || special(kind, path, s) !== undefined) continue;
    const type = Array.isArray(s.type) ? undefined : s.type;
    if (s.enum && type === 'string') candidates.push({ path, value: 'not-in-the-list', rule: 'enum' });
    else if (type === 'string' && s.maxLength !== undefined) candidates.push({ path, value: 'x'.repeat(s.maxLength + 1), rule: 'maxLength' });
    else if (type === 'string' && s.minLength > 1 && !s.pattern) candidates.push({ path, value: 'x'.repeat(s.minLength - 1), rule: 'minLength' });
    else if (type === 'string' && !s.format && !s.pattern) candidates.push({ path, value: 42, rule: 'type' });
    else if ((type === 'integer' || type === 'number') && s.maximum !== undefined) candidates.push({ path, value: s.maximum + 1, rule: 'maximum' });
    else if ((type === 'integer' || type === 'number') && s.minimum !== undefined) candidates.push({ path, value: s.minimum - 1, rule: 'minimum' });
    else if (type === 'integer' || type === 'number') candidates.push({ path, value: 'twelve', rule: 'type' });
    else if (type === 'boolean') candidates.push({ path, value: 'maybe', rule: 'type' });
    else if (type === 'array' || type === 'object') candidates.push({ path, value: 'x', rule: 'type' });
  }
  return candidates.length ? pick(candidates) : undefined;
}

/** The document with only what `schema` requires (nested required objects too). */
function minimal(kind, schema, path = []) {
  const s = deref(schema);
  const out = {};
  for (const k of Array.isArray(s.required) ? s.required : []) {
    const sub = deref(s.properties?.[k] ?? {});
    out[k] = sub.type === 'object' ? minimal(kind, sub, [...path, k]) : generate(kind, sub, [...path, k], 9);
  }
  return out;
}

const typeOk = (v, t) =>
  t === 'integer' ? Number.isInteger(v) : t === 'number' ? typeof v === 'number' : t === 'array' ? Array.isArray(v) : t === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v) : typeof v === t;

/**
 * The defaults Kazoo fills in `doc` (jesse's rules: a property missing, a `default` beside a `type` it
 * matches; a default object gets its own properties' defaults), as [path, value] pairs.
 */
function expectedDefaults(schema, doc, path = [], out = []) {
  const s = deref(schema);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return out;
  for (const [k, sub0] of Object.entries(s.properties ?? {})) {
    const sub = deref(sub0);
    if (doc[k] === undefined) {
      const types = Array.isArray(sub0.type) ? sub0.type : sub0.type ? [sub0.type] : [];
      if (sub0.default === undefined || !types.some((t) => typeOk(sub0.default, t))) continue;
      const value = structuredClone(sub0.default);
      out.push([[...path, k], value]);
      expectedDefaults(sub, value, [...path, k], out);
    } else if (doc[k] && typeof doc[k] === 'object' && !Array.isArray(doc[k])) {
      expectedDefaults(sub, doc[k], [...path, k], out);
    }
  }
  return out;
}

function valueAt(doc, path) {
  let o = doc;
  for (const k of path) {
    if (!o || typeof o !== 'object') return undefined;
    o = o[k];
  }
  return o;
}

// --- the server ---------------------------------------------------------------------------

async function call(base, token, method, path, data, envelope = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { 'X-Auth-Token': token } : {}) },
    body: data === undefined ? undefined : JSON.stringify({ ...envelope, data }),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

// --- the kinds ----------------------------------------------------------------------------
const KINDS = [
  { kind: 'accounts', schema: 'accounts', path: (c) => `/v2/accounts/${c.master}`, method: 'PUT' },
  { kind: 'users', schema: 'users', path: (c) => `/v2/accounts/${c.account}/users`, method: 'PUT' },
  { kind: 'webhooks', schema: 'webhooks', path: (c) => `/v2/accounts/${c.account}/webhooks`, method: 'PUT' },
  { kind: 'limits', schema: 'limits', path: (c) => `/v2/accounts/${c.account}/limits`, method: 'POST', envelope: { accept_charges: true } },
  { kind: 'resources', schema: 'resources', path: (c) => `/v2/accounts/${c.account}/resources`, method: 'PUT' },
  { kind: 'queues', schema: 'queues', path: (c) => `/v2/accounts/${c.account}/queues`, method: 'PUT' },
  { kind: 'devices', schema: 'devices', path: (c) => `/v2/accounts/${c.account}/devices`, method: 'PUT' },
  { kind: 'callflows', schema: 'callflows', path: (c) => `/v2/accounts/${c.account}/callflows`, method: 'PUT' },
  { kind: 'vmboxes', schema: 'vmboxes', path: (c) => `/v2/accounts/${c.account}/vmboxes`, method: 'PUT' },
  { kind: 'faxboxes', schema: 'faxbox', path: (c) => `/v2/accounts/${c.account}/faxboxes`, method: 'PUT' },
  { kind: 'media', schema: 'media', path: (c) => `/v2/accounts/${c.account}/media`, method: 'PUT' },
  { kind: 'whitelabel', schema: 'whitelabel', path: (c) => `/v2/accounts/${c.account}/whitelabel`, method: 'PUT', cleanup: true },
  ...['blacklists', 'groups', 'menus', 'temporal_rules', 'temporal_rules_sets', 'directories', 'conferences', 'lists', 'clicktocall', 'connectivity'].map((kind) => ({
    kind,
    schema: kind,
    path: (c) => `/v2/accounts/${c.account}/${kind}`,
    method: 'PUT',
  })),
  { kind: 'rates', schema: 'rates', path: () => '/v2/rates', method: 'PUT' },
  { kind: 'resource_selectors', schema: 'resource_selectors', path: (c) => `/v2/accounts/${c.account}/resource_selectors/${unique('s')}`, method: 'POST' },
  { kind: 'access_lists', schema: 'access_lists', path: (c) => `/v2/accounts/${c.account}/access_lists`, method: 'POST' },
  { kind: 'metaflows', schema: 'metaflows', path: (c) => `/v2/accounts/${c.account}/metaflows`, method: 'POST' },
  { kind: 'rate_limits', schema: 'account_rate_limits', path: (c) => `/v2/accounts/${c.account}/rate_limits`, method: 'POST' },
];

async function main() {
  state = opts.seed;
  const server = opts.url ? { url: opts.url, apiKey: opts.apiKey, stop() {} } : await startEphemeralTel();
  const results = [];
  const misses = [];
  try {
    const login = await call(server.url, undefined, 'PUT', '/v2/api_auth', { api_key: server.apiKey });
    const token = login.body.auth_token;
    const master = login.body.data.account_id;
    const sub = await call(server.url, token, 'PUT', `/v2/accounts/${master}`, { name: unique('Documents ') });
    const ctx = { master, account: sub.body.data.id };
    for (const k of KINDS) {
      const schema = load(k.schema);
      const r = { kind: k.kind, valid: 0, validOf: 0, broken: 0, brokenOf: 0, defaults: 0, defaultsOf: 0 };
      const send = async (doc) => {
        const res = await call(server.url, token, k.method, k.path(ctx), doc, k.envelope);
        if (k.cleanup && res.status < 300) await call(server.url, token, 'DELETE', k.path(ctx));
        return res;
      };
      for (let i = 0; i < opts.perKind; i++) {
        const doc = complete(k.kind, generate(k.kind, schema));
        const brokenSpec = breakOne(k.kind, schema, doc);
        const broken = structuredClone(doc);
        r.validOf++;
        const ok = await send(doc);
        if (ok.status >= 200 && ok.status < 300) r.valid++;
        else misses.push({ kind: k.kind, what: 'valid refused', status: ok.status, doc, answer: ok.body.data });
        if (!brokenSpec) continue;
        setAt(broken, brokenSpec.path, brokenSpec.value);
        // the broken document must differ only by the broken field: fresh unique values elsewhere
        for (const path of leaves(broken)) {
          const s = path.length ? schemaAt(schema, path) : undefined;
          if (s && path.join('.') !== brokenSpec.path.join('.') && special(k.kind, path, s) !== undefined && typeof valueAt(broken, path) === 'string') {
            setAt(broken, path, special(k.kind, path, s));
          }
        }
        r.brokenOf++;
        const no = await send(broken);
        const field = brokenSpec.path.join('.');
        const right = no.status === 400 && no.body?.data?.[field]?.[brokenSpec.rule] !== undefined;
        if (right) r.broken++;
        else misses.push({ kind: k.kind, what: `broken ${field} (${brokenSpec.rule}) not refused as Kazoo`, status: no.status, value: brokenSpec.value, answer: no.status === 400 ? no.body.data : undefined });
      }
      const min = complete(k.kind, minimal(k.kind, schema));
      const created = await send(min);
      const expected = expectedDefaults(schema, structuredClone(min));
      for (const [path, value] of expected) {
        r.defaultsOf++;
        const got = valueAt(created.body?.data, path);
        const same = value && typeof value === 'object' && !Array.isArray(value) ? got && typeof got === 'object' : isDeepStrictEqual(got, value);
        if (created.status < 300 && same) r.defaults++;
        else misses.push({ kind: k.kind, what: `default ${path.join('.')} = ${JSON.stringify(value)} missing`, status: created.status, got });
      }
      results.push(r);
    }
  } finally {
    server.stop();
  }
  const total = results.reduce((t, r) => {
    for (const key of ['valid', 'validOf', 'broken', 'brokenOf', 'defaults', 'defaultsOf']) t[key] += r[key];
    return t;
  }, { kind: 'total', valid: 0, validOf: 0, broken: 0, brokenOf: 0, defaults: 0, defaultsOf: 0 });
  if (opts.json) {
    console.log(JSON.stringify({ seed: opts.seed, perKind: opts.perKind, kinds: results, total, misses: opts.verbose ? misses : misses.length }));
    return;
  }
  const pct = (a, b) => (b === 0 ? '   -' : `${String(Math.round((100 * a) / b)).padStart(3)}%`);
  console.log(`${'kind'.padEnd(12)} ${'valid taken'.padStart(16)} ${'broken refused'.padStart(16)} ${'defaults'.padStart(14)}`);
  for (const r of [...results, total]) {
    console.log(
      `${r.kind.padEnd(12)} ${`${r.valid}/${r.validOf} ${pct(r.valid, r.validOf)}`.padStart(16)} ${`${r.broken}/${r.brokenOf} ${pct(r.broken, r.brokenOf)}`.padStart(16)} ${`${r.defaults}/${r.defaultsOf} ${pct(r.defaults, r.defaultsOf)}`.padStart(14)}`,
    );
  }
  if (opts.verbose) for (const m of misses) console.log(JSON.stringify(m));
  else if (misses.length) console.log(`${misses.length} misses (--verbose lists them)`);
}

await main();

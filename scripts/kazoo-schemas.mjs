#!/usr/bin/env node
// Compares tel's document schemas with Kazoo's, kind by kind.
//
//   node scripts/kazoo-schemas.mjs KAZOO_CHECKOUT [--openapi FILE]
//
// KAZOO_CHECKOUT is a checkout of github:2600hz/kazoo (or its applications/crossbar/priv/couchdb/schemas
// directory). tel's schemas are read from its OpenAPI document (`tel openapi`, or --openapi FILE),
// where each is a component named as Kazoo names its file. For every kind tel serves and every
// schema those refer to (callflow and metaflow modules included), it prints what differs: a field
// missing or extra, its type, enum values, bounds, pattern (Kazoo's POSIX classes read as such),
// format, required fields, the default Kazoo fills (a default beside a type it matches, as its
// validator applies them), and Kazoo's own checks (kazoo-validation, kazoo-regexp). Nothing is
// printed for a schema that matches. docs/kazoo-differences.md ("Documents") lists the
// differences tel keeps on purpose. A developer's tool: CI has no Kazoo checkout.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KINDS = [
  'accounts', 'users', 'webhooks', 'limits', 'resources', 'queues', 'devices', 'callflows', 'vmboxes', 'faxbox', 'media', 'whitelabel', 'domains',
  'access_lists', 'account_rate_limits', 'allotments', 'blacklists', 'clicktocall', 'comments', 'conferences', 'connectivity', 'device_rate_limits',
  'dialplans', 'directories', 'groups', 'list_entries', 'lists', 'menus', 'metaflows', 'queue_update', 'rates', 'resource_selectors',
  'resource_selectors.rules', 'storage', 'temporal_rules', 'temporal_rules_sets',
];

function usage(message) {
  if (message) console.error(message);
  console.error('usage: node scripts/kazoo-schemas.mjs KAZOO_CHECKOUT [--openapi FILE]');
  process.exit(2);
}

const args = process.argv.slice(2);
let checkout;
let openapiFile;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--openapi') openapiFile = args[++i];
  else if (args[i].startsWith('-')) usage(`unknown option ${args[i]}`);
  else checkout = args[i];
}
if (!checkout) usage();
const dir = [join(checkout, 'applications/crossbar/priv/couchdb/schemas'), checkout].find((d) => existsSync(join(d, 'users.json')));
if (!dir) usage(`no Kazoo schemas under ${checkout}`);

const kazooFiles = new Set(readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)));
const kazooCache = new Map();
function kazoo(name) {
  if (!kazooCache.has(name)) kazooCache.set(name, JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')));
  return kazooCache.get(name);
}

function telDocument() {
  if (openapiFile) return JSON.parse(readFileSync(openapiFile, 'utf8'));
  const r = spawnSync(process.execPath, [join(root, 'bin/tel.js'), 'openapi'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    console.error(`tel openapi failed: ${r.stderr}`);
    process.exit(1);
  }
  return JSON.parse(r.stdout);
}
const tel = telDocument().components.schemas;

/** The schemas Kazoo's kinds refer to, callflow and metaflow modules included (their data is checked by module). */
function kazooClosure() {
  const seen = new Set();
  const pending = [...KINDS, ...[...kazooFiles].filter((n) => /^(callflows|metaflows)\.[^.]+/.test(n))];
  while (pending.length) {
    const n = pending.pop();
    if (seen.has(n) || !kazooFiles.has(n)) continue;
    seen.add(n);
    JSON.stringify(kazoo(n), (k, v) => {
      if (k === '$ref' && typeof v === 'string') pending.push(v.replace(/\.json$/, '').replace(/#.*$/, ''));
      return v;
    });
  }
  return [...seen].sort((a, b) => (KINDS.indexOf(a) + 1 || 99) - (KINDS.indexOf(b) + 1 || 99) || a.localeCompare(b));
}

// --- reading a schema the way Kazoo's validator (jesse) applies it -----------------------------
const POSIX = { '[:alnum:]': 'A-Za-z0-9', '[:alpha:]': 'A-Za-z', '[:digit:]': '0-9', '[:upper:]': 'A-Z', '[:lower:]': 'a-z', '[:space:]': '\\s' };
const posix = (p) => p.replace(/\[:\w+:\]/g, (c) => POSIX[c] ?? c);
const refName = (r) => (typeof r === 'string' ? r.replace(/^#\/components\/schemas\//, '').replace(/\.json$/, '') : undefined);
const types = (s) => (s.type === undefined ? undefined : [].concat(s.type).sort().join('|'));
const typeOk = (v, t) =>
  t === 'integer' ? Number.isInteger(v) : t === 'number' ? typeof v === 'number' : t === 'array' ? Array.isArray(v)
  : t === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v) : t === 'null' ? v === null : typeof v === t;
/**
 * The default jesse applies: one beside a type it matches, which the property's schema then takes
 * (an empty list under minItems is never filled in; a rough check of lengths and required keys).
 */
function effectiveDefault(s) {
  const d = s.default;
  if (d === undefined || s.type === undefined || ![].concat(s.type).some((t) => typeOk(d, t))) return undefined;
  if (Array.isArray(d) && d.length < (s.minItems ?? 0)) return undefined;
  if (typeof d === 'string' && d.length < (s.minLength ?? 0)) return undefined;
  if (typeOk(d, 'object') && Array.isArray(s.required) && s.required.some((k) => !(k in d))) return undefined;
  return d;
}

const show = (v) => (v === undefined ? 'none' : JSON.stringify(v));
const BOUNDS = ['minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'uniqueItems', 'format'];

/** Kazoo's own checks on a field, as tel names them. */
function kazooChecks(s, key, path) {
  const out = [];
  if (s['kazoo-regexp']) out.push('x-regex');
  if (s['kazoo-validation'] && key !== 'module' && key !== 'data') out.push('x-client-url');
  return out;
}
function telChecks(s) {
  return ['x-regex', 'x-client-url'].filter((k) => s[k]);
}

/** The differences between Kazoo's schema `k` and tel's `t` at `path`, as lines. */
function compare(k, t, path, out, key) {
  const at = path || '(document)';
  const kr = refName(k.$ref);
  const tr = refName(t.$ref);
  if (kr || tr) {
    if (kr !== tr) out.push(`${at}: refers to ${kr ?? 'nothing'} in Kazoo, ${tr ?? 'nothing'} in tel`);
    // siblings of a reference count too (a type beside it)
    if (types(k) !== types(t)) out.push(`${at}: type ${show(types(k))} in Kazoo, ${show(types(t))} in tel`);
    return;
  }
  if (types(k) !== types(t)) out.push(`${at}: type ${show(types(k))} in Kazoo, ${show(types(t))} in tel`);
  const ke = k.enum && [...k.enum].sort();
  const te = t.enum && [...t.enum].sort();
  if (!isDeepStrictEqual(ke, te)) out.push(`${at}: enum ${show(k.enum)} in Kazoo, ${show(t.enum)} in tel`);
  for (const b of BOUNDS) if (!isDeepStrictEqual(k[b], t[b])) out.push(`${at}: ${b} ${show(k[b])} in Kazoo, ${show(t[b])} in tel`);
  if ((k.pattern && posix(k.pattern)) !== t.pattern) out.push(`${at}: pattern ${show(k.pattern)} in Kazoo, ${show(t.pattern)} in tel`);
  // jesse fills the defaults of properties only (not of list items or other keys)
  const kd = key === undefined ? undefined : effectiveDefault(k);
  const td = key === undefined ? undefined : effectiveDefault(t);
  if (!isDeepStrictEqual(kd, td)) out.push(`${at}: default ${show(kd)} in Kazoo, ${show(td)} in tel`);
  const kreq = Array.isArray(k.required) ? [...k.required].sort() : [];
  const treq = Array.isArray(t.required) ? [...t.required].sort() : [];
  if (!isDeepStrictEqual(kreq, treq)) out.push(`${at}: required ${show(kreq)} in Kazoo, ${show(treq)} in tel`);
  const kc = kazooChecks(k, key, path);
  const tc = telChecks(t);
  if (!isDeepStrictEqual(kc, tc)) out.push(`${at}: checks ${show(kc)} in Kazoo, ${show(tc)} in tel`);
  // a callflow or metaflow action: Kazoo checks its module and data by the module's schema
  const kmod = k.properties?.module?.['kazoo-validation'] === true;
  if (kmod !== (t['x-module'] !== undefined)) out.push(`${at}: module check ${kmod ? 'in Kazoo only' : 'in tel only'}`);

  const kp = k.properties ?? {};
  const tp = t.properties ?? {};
  for (const name of Object.keys(kp)) {
    const sub = join2(path, name);
    if (!tp[name]) out.push(`${sub}: in Kazoo, not in tel`);
    else compare(kp[name], tp[name], sub, out, name);
  }
  for (const name of Object.keys(tp)) if (!kp[name]) out.push(`${join2(path, name)}: in tel, not in Kazoo`);

  const kpp = Object.fromEntries(Object.entries(k.patternProperties ?? {}).map(([p, v]) => [posix(p), v]));
  const tpp = t.patternProperties ?? {};
  for (const p of new Set([...Object.keys(kpp), ...Object.keys(tpp)])) {
    const sub = join2(path, `/${p}/`);
    if (!kpp[p] || !tpp[p]) out.push(`${sub}: keys matching it ${kpp[p] ? 'in Kazoo only' : 'in tel only'}`);
    else compare(kpp[p], tpp[p], sub, out);
  }
  const ka = k.additionalProperties;
  const ta = t.additionalProperties;
  if (typeof ka === 'object' && typeof ta === 'object') compare(ka, ta, join2(path, '*'), out);
  else if (ka !== ta) out.push(`${join2(path, '*')}: other keys ${show(ka)} in Kazoo, ${show(ta)} in tel`);
  if (k.items || t.items) {
    if (!k.items || !t.items) out.push(`${join2(path, '[]')}: items ${k.items ? 'in Kazoo only' : 'in tel only'}`);
    else compare(k.items, t.items, join2(path, '[]'), out);
  }
  for (const c of ['oneOf', 'anyOf', 'allOf']) {
    const kb = k[c] ?? [];
    const tb = t[c] ?? [];
    if (kb.length !== tb.length) out.push(`${at}: ${c} of ${kb.length} in Kazoo, ${tb.length} in tel`);
    else kb.forEach((b, i) => compare(b, tb[i], join2(path, `${c}[${i}]`), out));
  }
}

function join2(path, key) {
  return path ? `${path}.${key}` : key;
}

let printed = 0;
for (const name of kazooClosure()) {
  const lines = [];
  if (!tel[name]) lines.push('no schema of this name in tel');
  else compare(kazoo(name), tel[name], '', lines);
  if (lines.length === 0) continue;
  console.log(name);
  for (const l of lines) console.log(`  ${l}`);
  printed += lines.length;
}
process.exitCode = printed > 0 ? 1 : 0;

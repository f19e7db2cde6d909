import { describeRule, type ValidationErrors } from '../errors.js';
import { MODULES } from '../modules/index.js';
import { validateAccount } from '../modules/accounts/schema.js';
import { normaliseName } from '../modules/accounts/service.js';
import { accountConfigValidators, canonicalCategory } from '../modules/config/service.js';
import { categoriesByName, checkConfigDoc } from '../modules/config/categories.js';
import { validateLimits } from '../modules/limits/schema.js';
import { validateSubscription } from '../modules/push/schema.js';
import { SYSTEM_TEMPLATE_CATEGORY } from '../modules/token-restrictions/service.js';
import { ACCOUNT_COLLECTIONS, GLOBAL_RESOURCES, MASKED, type CollectionKind } from './kinds.js';
import { LabInvalid, type Problem } from './parse.js';
import { RefIndex, type RefTarget } from './refs.js';

/** A named object a lab declares (a user, a webhook, a push subscription, …). */
export interface ItemNode extends RefTarget {
  where: string;
  /** its natural key (`name`, `username`; a push subscription's `APP DEVICE`) */
  key: string;
  /** its document, validated (defaults filled) as the service would */
  doc: Record<string, unknown>;
  /** users: the password, when the file gives one */
  password?: string;
  /** push subscriptions: the name of the account's device it is for */
  device?: string;
}

/** An account a lab declares, with what it holds. A list the file leaves out is not managed. */
export interface AccountNode extends RefTarget {
  where: string;
  name: string;
  /** names from the file's root account, `/`-joined */
  path: string;
  /** the account document (name, realm, enabled, …, and `restrictions` from `token_restrictions`) */
  doc: Record<string, unknown>;
  tokenRestrictions?: Record<string, unknown>;
  apiKey?: string;
  limits?: Record<string, unknown>;
  configs?: Record<string, Record<string, unknown>>;
  collections: Map<CollectionKind, ItemNode[]>;
  pushSubscriptions?: ItemNode[];
  children?: AccountNode[];
  /** the root only: the path of names of the account it goes under (a subtree's export) */
  parent?: string;
}

/** What a lab file declares, validated. */
export interface Lab {
  system?: {
    /** categories (canonical names) to their documents (`{default: …}` form) */
    configs?: Map<string, Record<string, unknown>>;
    tokenRestrictions?: Record<string, unknown>;
    resources?: ItemNode[];
  };
  account: AccountNode;
  refs: RefIndex;
}

/** The keys of an account entry that are not fields of its document. */
const ACCOUNT_KEYS = new Set([
  'children',
  'api_key',
  'token_restrictions',
  'limits',
  'configs',
  'push_subscriptions',
  'parent',
  ...ACCOUNT_COLLECTIONS.map((k) => k.key),
]);

/** What an API key given in a lab file looks like (tel generates 64 hex digits). */
const API_KEY = /^[A-Za-z0-9_-]{32,128}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ACCOUNT_DOC_CHECKS = MODULES.flatMap((m) => m.accountDocChecks ?? []);
const CONFIG_CATEGORIES = categoriesByName(MODULES.flatMap((m) => m.configs ?? []));
/** The checks modules declare for accounts' settings of their categories (the webhooks category's). */
const ACCOUNT_CONFIG_CHECKS = accountConfigValidators(MODULES);

/** Checks a parsed lab file whole; answers the model, or throws LabInvalid with every problem. */
export function readLab(data: unknown): Lab {
  return new Reader().read(data);
}

class Reader {
  private problems: Problem[] = [];
  private refs = new RefIndex(new Set(['accounts', ...ACCOUNT_COLLECTIONS.map((k) => k.key)]));
  /** values to check for references once every object is declared, with where they are */
  private referring: { where: string; value: unknown }[] = [];
  private apiKeys = new Map<string, string>();

  read(data: unknown): Lab {
    if (!isObject(data)) throw new LabInvalid([{ path: '(file)', message: 'a lab file is a mapping with `account` (and optionally `system`)' }]);
    this.unknownKeys(data, ['version', 'system', 'account'], '');
    if (data.version !== undefined && data.version !== 1) this.problem('version', 'this tel reads version 1 lab files');
    const system = data.system === undefined ? undefined : this.system(data.system);
    let account: AccountNode | undefined;
    if (!isObject(data.account)) this.problem('account', 'the root account (the master account, or the one under `parent`) is required, as a mapping');
    else account = this.account(data.account, 'account', [], true);
    for (const r of this.referring) for (const p of this.refs.problems(r.value)) this.problem(r.where, p);
    if (this.problems.length > 0 || !account) throw new LabInvalid(this.problems);
    return { system, account, refs: this.refs };
  }

  private problem(path: string, message: string): void {
    this.problems.push({ path: path || '(file)', message });
  }

  private errors(where: string, errs: ValidationErrors | undefined): void {
    for (const [field, rules] of Object.entries(errs ?? {})) {
      for (const [rule, detail] of Object.entries(rules)) this.problem(field === 'data' ? where : `${where}.${field}`, describeRule(rule, detail));
    }
  }

  private unknownKeys(obj: Record<string, unknown>, allowed: string[], where: string): void {
    for (const k of Object.keys(obj)) if (!allowed.includes(k)) this.problem(join(where, k), `unknown key (expected ${allowed.join(', ')})`);
  }

  private list(value: unknown, where: string): Record<string, unknown>[] {
    if (!Array.isArray(value)) {
      this.problem(where, 'must be a list');
      return [];
    }
    return value.flatMap((v, i) => {
      if (isObject(v)) return [v];
      this.problem(`${where}[${i}]`, 'must be a mapping');
      return [];
    });
  }

  private mapping(value: unknown, where: string): Record<string, unknown> | undefined {
    if (isObject(value)) return value;
    this.problem(where, 'must be a mapping');
    return undefined;
  }

  private system(value: unknown): Lab['system'] {
    const sys = this.mapping(value, 'system');
    if (!sys) return undefined;
    this.unknownKeys(sys, ['configs', 'token_restrictions', 'resources'], 'system');
    const out: NonNullable<Lab['system']> = {};
    if (sys.configs !== undefined) {
      const configs = this.mapping(sys.configs, 'system.configs') ?? {};
      out.configs = new Map();
      for (const [name, doc] of Object.entries(configs)) {
        const where = `system.configs.${name}`;
        const category = canonicalCategory(name);
        if (category === SYSTEM_TEMPLATE_CATEGORY) {
          this.problem(where, 'the system restriction template is `system.token_restrictions`');
          continue;
        }
        if (out.configs.has(category)) this.problem(where, `${category} is given twice`);
        const body = this.mapping(doc, where);
        if (!body) continue;
        const nodes = isObject(body.default) ? body : { default: body };
        this.errors(where, checkConfigDoc(CONFIG_CATEGORIES.get(category), { id: category, ...structuredClone(nodes) }));
        out.configs.set(category, nodes);
      }
    }
    if (sys.token_restrictions !== undefined) {
      const node = this.mapping(sys.token_restrictions, 'system.token_restrictions');
      if (node) {
        this.errors('system.token_restrictions', renamed(checkConfigDoc(CONFIG_CATEGORIES.get(SYSTEM_TEMPLATE_CATEGORY), { id: SYSTEM_TEMPLATE_CATEGORY, default: structuredClone(node) }), 'default', ''));
        this.referring.push({ where: 'system.token_restrictions', value: node });
        out.tokenRestrictions = node;
      }
    }
    if (sys.resources !== undefined) out.resources = this.items(GLOBAL_RESOURCES, sys.resources, 'system.resources', '');
    return out;
  }

  private account(entry: Record<string, unknown>, where: string, parents: string[], root: boolean): AccountNode | undefined {
    const name = entry.name;
    if (typeof name !== 'string' || name === '') {
      this.problem(join(where, 'name'), 'an account needs a name (its key: accounts are matched by name under their parent)');
      return undefined;
    }
    const path = [...parents, name].join('/');
    const node: AccountNode = { where, name, path, doc: {}, collections: new Map() };
    for (const [k, v] of Object.entries(entry)) if (!ACCOUNT_KEYS.has(k)) node.doc[k] = v;
    if ('id' in node.doc) this.problem(join(where, 'id'), 'ids are not declared: objects are matched by name (refer to one with {{accounts.NAME.id}})');
    if ('restrictions' in node.doc) this.problem(join(where, 'restrictions'), "an account's restriction template is `token_restrictions`");
    delete node.doc.id;
    delete node.doc.restrictions;
    if (entry.parent !== undefined) {
      if (!root) this.problem(join(where, 'parent'), 'only the root account has a parent (the path of names of the account it goes under)');
      else if (typeof entry.parent !== 'string' || entry.parent === '') this.problem(join(where, 'parent'), 'must be a path of account names, like Lab/Resellers');
      else node.parent = entry.parent;
    }
    if (entry.token_restrictions !== undefined) {
      node.tokenRestrictions = this.mapping(entry.token_restrictions, join(where, 'token_restrictions'));
      if (node.tokenRestrictions) node.doc.restrictions = node.tokenRestrictions;
    }
    const errs = validateAccount.check(node.doc);
    this.errors(where, errs);
    for (const check of ACCOUNT_DOC_CHECKS) this.errors(where, renamed(check(node.doc), 'restrictions', 'token_restrictions'));
    this.referring.push({ where, value: node.doc });
    if (entry.api_key !== undefined) this.apiKey(node, entry.api_key, join(where, 'api_key'));
    if (entry.limits !== undefined) {
      node.limits = this.mapping(entry.limits, join(where, 'limits'));
      if (node.limits) this.errors(join(where, 'limits'), validateLimits.check(structuredClone(node.limits)));
    }
    if (entry.configs !== undefined) this.accountConfigs(node, entry.configs, join(where, 'configs'));
    this.refs.add('accounts', path, name, node);
    for (const kind of ACCOUNT_COLLECTIONS) {
      if (entry[kind.key] !== undefined) node.collections.set(kind, this.items(kind, entry[kind.key], join(where, kind.key), path));
    }
    if (entry.push_subscriptions !== undefined) node.pushSubscriptions = this.pushes(entry.push_subscriptions, join(where, 'push_subscriptions'), node);
    if (entry.children !== undefined) {
      node.children = [];
      const seen = new Map<string, string>();
      this.list(entry.children, join(where, 'children')).forEach((child, i) => {
        const childWhere = `${join(where, 'children')}[${i}]`;
        const c = this.account(child, childWhere, [...parents, name], false);
        if (!c) return;
        const clash = seen.get(normaliseName(c.name));
        if (clash) this.problem(join(childWhere, 'name'), `"${c.name}" is also the name of ${clash}: accounts under one parent need different names`);
        seen.set(normaliseName(c.name), childWhere);
        node.children!.push(c);
      });
    }
    return node;
  }

  private apiKey(node: AccountNode, value: unknown, where: string): void {
    if (typeof value !== 'string' || (value !== MASKED && !API_KEY.test(value))) {
      this.problem(where, `an API key is 32 to 128 letters, digits, _ or - (or ${MASKED}: keep the key it has, a new account gets one generated)`);
      return;
    }
    if (value === MASKED) return;
    const other = this.apiKeys.get(value);
    if (other) this.problem(where, `the same API key as ${other}`);
    this.apiKeys.set(value, where);
    node.apiKey = value;
  }

  private accountConfigs(node: AccountNode, value: unknown, where: string): void {
    const configs = this.mapping(value, where);
    if (!configs) return;
    node.configs = {};
    for (const [name, doc] of Object.entries(configs)) {
      const category = canonicalCategory(name);
      if (node.configs[category]) this.problem(join(where, name), `${category} is given twice`);
      const body = this.mapping(doc, join(where, name));
      if (!body) continue;
      this.errors(join(where, name), ACCOUNT_CONFIG_CHECKS[category]?.check(body));
      node.configs[category] = body;
    }
  }

  /** The objects of one collection: each named, validated as its service would, none twice. */
  private items(kind: CollectionKind, value: unknown, where: string, accountPath: string): ItemNode[] {
    const out: ItemNode[] = [];
    const byKey = new Map<string, ItemNode>();
    this.list(value, where).forEach((entry, i) => {
      const at = `${where}[${i}]`;
      const key = entry[kind.keyField];
      if (typeof key !== 'string' || key === '') {
        this.problem(join(at, kind.keyField), `a ${kind.label} needs a ${kind.keyField} (its key: it is matched by it)`);
        return;
      }
      const clash = byKey.get(kind.keyOf(key));
      if (clash) this.problem(join(at, kind.keyField), `"${key}" is also ${clash.where}: a ${kind.keyField} is given once`);
      const { password, id, ...doc } = entry;
      if (id !== undefined) this.problem(join(at, 'id'), `ids are not declared: objects are matched by ${kind.keyField}`);
      const item: ItemNode = { where: at, key, doc };
      if (kind.key === 'users' && password !== undefined && password !== MASKED) {
        if (typeof password !== 'string' || password === '') this.problem(join(at, 'password'), 'must be a non-empty string');
        else item.password = password;
      } else if (kind.key !== 'users' && password !== undefined) doc.password = password;
      this.errors(at, checkUnmasked(doc, kind.check));
      this.referring.push({ where: at, value: doc });
      this.refs.add(kind.key, accountPath ? `${accountPath}/${key}` : key, key, item);
      if (!clash) byKey.set(kind.keyOf(key), item);
      out.push(item);
    });
    return out;
  }

  private pushes(value: unknown, where: string, node: AccountNode): ItemNode[] {
    const out: ItemNode[] = [];
    const devices = node.collections.get(ACCOUNT_COLLECTIONS.find((k) => k.key === 'devices')!) ?? [];
    this.list(value, where).forEach((entry, i) => {
      const at = `${where}[${i}]`;
      const { device, ...doc } = entry;
      const known = typeof device === 'string' && devices.some((d) => d.key === device);
      if (!known) this.problem(join(at, 'device'), `the name of a device of ${node.path} (under its \`devices\`)`);
      const key = `${String(doc.app_name)} ${device}`;
      if (out.some((o) => o.key === key)) this.problem(at, `a second subscription of ${device} to ${String(doc.app_name)}: one per device and app`);
      // the service sets device_id from the path; a placeholder stands for it while checking
      this.errors(at, validateSubscription.check(Object.assign(doc, { device_id: '0'.repeat(32) })));
      delete doc.device_id;
      if (known) out.push({ where: at, key, doc, device: device as string });
    });
    return out;
  }
}

/**
 * Checks a document with its masked values left out (they stand for values kept in the database);
 * a field holding a reference (`{{users.alice.id}}`) is checked once it is resolved, when applied.
 */
function checkUnmasked(doc: Record<string, unknown>, check: (doc: Record<string, unknown>) => ValidationErrors | undefined) {
  const masked = Object.entries(doc).filter(([, v]) => v === MASKED);
  for (const [k] of masked) delete doc[k];
  const errs = check(doc);
  for (const [k, v] of masked) doc[k] = v;
  if (!errs) return undefined;
  const kept = Object.entries(errs).filter(([field]) => !isReference(valueAtPath(doc, field)));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

const isReference = (v: unknown) => typeof v === 'string' && /\{\{.+\}\}/.test(v);

/** The value at a validation error's dotted path (`gateways.0.server`). */
function valueAtPath(doc: unknown, field: string): unknown {
  let v = doc;
  for (const k of field.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k.replace(/%2E/g, '.')] : undefined;
  return v;
}

/** Errors keyed under `from` moved under `to` (`''`: to the checked value itself). */
function renamed(errs: ValidationErrors | undefined, from: string, to: string): ValidationErrors | undefined {
  if (!errs) return undefined;
  const move = (k: string) => {
    if (k !== from && !k.startsWith(`${from}.`)) return k;
    const rest = k.slice(from.length + 1);
    return to ? (rest ? `${to}.${rest}` : to) : rest || 'data';
  };
  return Object.fromEntries(Object.entries(errs).map(([k, v]) => [move(k), v]));
}

function join(where: string, key: string): string {
  return where ? `${where}.${key}` : key;
}

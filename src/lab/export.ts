import type { Core } from '../core-type.js';
import type { ValidationErrors } from '../errors.js';
import { defaultRealm, defaultTimezone, getAccount, listChildren, masterAccount, type Account } from '../modules/accounts/service.js';
import { validateAccount } from '../modules/accounts/schema.js';
import { getLimits } from '../modules/limits/service.js';
import { validateLimits } from '../modules/limits/schema.js';
import { listSubscriptions } from '../modules/push/service.js';
import { validateSubscription } from '../modules/push/schema.js';
import { accountConfigCategories, getAccountConfig } from '../modules/config/account-config.js';
import { SYSTEM_TEMPLATE_CATEGORY } from '../modules/token-restrictions/service.js';
import { canonical } from './compare.js';
import { ACCOUNT_COLLECTIONS, GLOBAL_RESOURCES, labKeys, MASKED, type CollectionKind, type Stored } from './kinds.js';
import { forEachString, RefIndex } from './refs.js';

/** What `tel export` writes: the lab format `tel apply` reads. */
export interface ExportOptions {
  /** the account whose subtree to write (default: the whole database, from the master account) */
  accountId?: string;
  /** write API keys and secrets as they are, instead of masked */
  withSecrets: boolean;
}

type Entry = Record<string, unknown>;

/** A lab as `tel export` makes it, and a sentence for each object written under another name than its own. */
export interface Exported {
  lab: Entry;
  notes: string[];
}

/** The database (or one account's subtree) as a lab: what `tel apply` of it would build again. */
export function exportLab(core: Core, opts: ExportOptions): Exported {
  const exporter = new Exporter(core, opts);
  return { lab: exporter.run(), notes: exporter.notes };
}

/** A lab as file text: YAML with a header comment, or JSON. */
export async function labText(lab: Entry, format: 'yaml' | 'json'): Promise<string> {
  if (format === 'json') return `${JSON.stringify(lab, null, 2)}\n`;
  const { stringify } = await import('yaml');
  return `# A tel lab: \`tel apply FILE\` builds it, \`tel export\` writes it.\n${stringify(lab, { lineWidth: 0 })}`;
}

/** Drops the fields a document holds at their default values: applying the file fills them in again. */
function withoutDefaults(doc: Entry, check: (doc: Entry) => ValidationErrors | undefined): Entry {
  const out: Entry = {};
  for (const [k, v] of Object.entries(doc)) {
    const copy = structuredClone(doc);
    delete copy[k];
    const filled = check(copy) === undefined && canonical(copy[k]) === canonical(v);
    if (!filled) out[k] = v;
  }
  return out;
}

/** The fields of a document in a stable order: the key fields first, the others by name. */
function sorted(doc: Entry, first: string[]): Entry {
  const out: Entry = {};
  for (const k of first) if (doc[k] !== undefined) out[k] = doc[k];
  for (const k of Object.keys(doc).sort()) if (!first.includes(k)) out[k] = doc[k];
  return out;
}

const ID = /[0-9a-f]{32}/g;

class Exporter {
  private refs = new RefIndex(new Set(['accounts', ...ACCOUNT_COLLECTIONS.map((k) => k.key)]));
  /** id → the reference that names it in the file */
  private names = new Map<string, string>();
  private declared: { kind: string; id: string; full: string; bare: string }[] = [];
  /** id → the key an object is written with, when not its own (it shares its name with an older one) */
  private keys = new Map<string, string>();
  readonly notes: string[] = [];

  constructor(
    private readonly core: Core,
    private readonly opts: ExportOptions,
  ) {}

  run(): Entry {
    const root = this.opts.accountId ? getAccount(this.core, this.opts.accountId) : masterAccount(this.core);
    if (!root) throw new Error(`the database ${this.core.file} has no accounts yet (tel init, or tel apply a lab)`);
    this.declare(root, root.name);
    if (!this.opts.accountId) this.declareItems(GLOBAL_RESOURCES, GLOBAL_RESOURCES.list(this.core, {}), '');
    for (const d of this.declared) this.names.set(d.id, `{{${d.kind}.${this.refs.keyOf(d.kind, d.full, d.bare)}.id}}`);
    const lab: Entry = { version: 1 };
    if (!this.opts.accountId) {
      const system = this.system();
      if (Object.keys(system).length > 0) lab.system = system;
    }
    const { name, ...account } = this.account(root, root.name);
    lab.account = root.parentId ? { name, parent: this.pathOf(root.parentId), ...account } : { name, ...account };
    return lab;
  }

  /** Pass one: every object the file will hold, so that ids anywhere can become references. */
  private declare(a: Account, path: string): void {
    this.refs.add('accounts', path, a.name, {});
    this.declared.push({ kind: 'accounts', id: a.id, full: path, bare: a.name });
    for (const kind of ACCOUNT_COLLECTIONS) this.declareItems(kind, kind.list(this.core, { accountId: a.id }), path);
    for (const c of listChildren(this.core, a.id)) this.declare(c, `${path}/${c.name}`);
  }

  private declareItems(kind: CollectionKind, stored: Stored[], path: string): void {
    const keys = labKeys(kind, stored);
    for (const { id, doc } of stored) {
      const key = keys.get(id)!;
      const full = path ? `${path}/${key}` : key;
      this.refs.add(kind.key, full, key, {});
      this.declared.push({ kind: kind.key, id, full, bare: key });
      const own = String(doc[kind.keyField]);
      if (key === own) continue;
      this.keys.set(id, key);
      this.notes.push(`${kind.label} ${id} of ${path || 'the system'} is written as "${key}": an older ${kind.label} there is named "${own}" too (tel apply of the file renames it)`);
    }
  }

  /** A copy of a document whose ids of objects in the file are references to them. */
  private referring<T>(doc: T): T {
    return forEachString(doc, (s) => s.replace(ID, (id) => this.names.get(id) ?? id)) as T;
  }

  private pathOf(id: string): string {
    const a = getAccount(this.core, id);
    return [...a.tree, a.id].map((x) => getAccount(this.core, x).name).join('/');
  }

  private system(): Entry {
    const out: Entry = {};
    const configs: Entry = {};
    for (const category of this.core.config.list()) {
      const { id: _id, ...nodes } = this.core.config.get(category)!;
      const flat = Object.keys(nodes).length === 1 && nodes.default ? nodes.default : nodes;
      if (category === SYSTEM_TEMPLATE_CATEGORY) out.token_restrictions = this.referring(flat);
      else configs[category] = this.referring(flat);
    }
    if (Object.keys(configs).length > 0) out.configs = configs;
    const resources = this.items(GLOBAL_RESOURCES, GLOBAL_RESOURCES.list(this.core, {}));
    if (resources.length > 0) out.resources = resources;
    return sorted(out, ['configs', 'token_restrictions', 'resources']);
  }

  private account(a: Account, path: string): Entry {
    const { name: _n, realm: _r, restrictions, ...fields } = withoutDefaults(a.doc, (d) => validateAccount.check(d));
    if (fields.timezone === defaultTimezone(this.core)) delete fields.timezone;
    const entry: Entry = { name: a.name };
    if (a.realm !== defaultRealm(a.id)) entry.realm = a.realm;
    entry.api_key = this.opts.withSecrets ? a.apiKey : MASKED;
    Object.assign(entry, sorted(this.referring(fields), []));
    if (restrictions !== undefined) entry.token_restrictions = this.referring(restrictions);
    const limits = getLimits(this.core, a.id);
    if (limits.rev) {
      const { id: _id, ...stored } = limits.data;
      const kept = withoutDefaults(stored, (d) => validateLimits.check(d));
      if (Object.keys(kept).length > 0) entry.limits = kept;
    }
    const configs: Entry = {};
    for (const category of accountConfigCategories(this.core.db, a.id)) {
      const overrides = getAccountConfig(this.core.db, a.id, category)?.doc;
      if (overrides && Object.keys(overrides).length > 0) configs[category] = this.referring(overrides);
    }
    if (Object.keys(configs).length > 0) entry.configs = configs;
    for (const kind of ACCOUNT_COLLECTIONS) {
      const items = this.items(kind, kind.list(this.core, { accountId: a.id }));
      if (items.length > 0) entry[kind.key] = items;
    }
    const pushes = this.pushes(a.id);
    if (pushes.length > 0) entry.push_subscriptions = pushes;
    const children = listChildren(this.core, a.id).sort((x, y) => x.name.localeCompare(y.name));
    if (children.length > 0) entry.children = children.map((c) => this.account(c, `${path}/${c.name}`));
    return entry;
  }

  private items(kind: CollectionKind, list: Stored[]): Entry[] {
    return list
      .map((s) => {
        const doc = withoutDefaults(s.doc, kind.check);
        const key = this.keys.get(s.id);
        if (key !== undefined) doc[kind.keyField] = key;
        if (!this.opts.withSecrets) kind.mask?.(doc);
        return sorted(this.referring(doc), [kind.keyField]);
      })
      .sort((x, y) => String(x[kind.keyField]).localeCompare(String(y[kind.keyField])));
  }

  private pushes(accountId: string): Entry[] {
    const devices = new Map(
      ACCOUNT_COLLECTIONS.find((k) => k.key === 'devices')!
        .list(this.core, { accountId })
        .map((d) => [d.id, String(d.doc.name)]),
    );
    return listSubscriptions(this.core, accountId)
      .filter((s) => devices.has(s.deviceId))
      .map((s) => {
        const { device_id: _d, ...doc } = withoutDefaults(s.doc, (d) => validateSubscription.check(d));
        return sorted({ ...this.referring(doc), device: devices.get(s.deviceId) }, ['app_name', 'device']);
      })
      .sort((x, y) => `${x.app_name} ${x.device}`.localeCompare(`${y.app_name} ${y.device}`));
  }
}

import type { Core } from '../core-type.js';
import {
  createAccount,
  defaultRealm,
  deleteAccount,
  findAccountByApiKey,
  listDescendants,
  masterAccount,
  normaliseName,
  rotateApiKey,
  updateAccount,
  defaultTimezone,
  findAccount,
  resellerIdOf,
  type Account,
} from '../modules/accounts/service.js';
import { getLimits, quoteLimits, setLimits } from '../modules/limits/service.js';
import { createSubscription, deleteSubscription, listSubscriptions, updateSubscription } from '../modules/push/service.js';
import { accountConfigCategories, getAccountConfig } from '../modules/config/account-config.js';
import { SYSTEM_TEMPLATE_CATEGORY } from '../modules/token-restrictions/service.js';
import type { Scope } from '../modules/resources/service.js';
import { newId } from '../util/ids.js';
import { differenceFrom, mergeLayers } from '../util/json.js';
import { findDoc } from '../modules/documents/store.js';
import { GLOBAL_RESOURCES, labKeys, type CollectionKind, type Stored } from './kinds.js';
import { passwordOf, unmasked } from './secrets.js';
import type { Problem } from './parse.js';
import type { AccountNode, ItemNode, Lab } from './read.js';
import { canonical, changedFields } from './compare.js';

/** One line of a plan: what changes, and the service call that changes it. */
export interface Change {
  action: 'create' | 'change' | 'remove';
  /** `account`, `user`, `webhook`, `limits`, `system config`, … */
  kind: string;
  /** the object's key: a path of names (`Lab/Customer A/alice`), a category */
  name: string;
  /** the fields a change changes */
  fields?: string[];
  /** when it runs in the transaction: removals first, parents before children, hooks last */
  order: number;
  run(core: Core): void;
}

/** What applying a lab file would do. */
export interface Plan {
  changes: Change[];
  /** secrets tel made up for objects the file gives none (passwords), shown once after applying */
  generated: { name: string; value: string }[];
  /** objects the database has beyond the file's lists, left alone without `--prune` */
  unmanaged: string[];
}

/** The database does not fit the file (an ambiguous name, a missing parent): nothing written. */
export class PlanRefused extends Error {
  constructor(readonly problems: Problem[]) {
    super(`the lab cannot be applied to this database: ${problems.length} problem(s)`);
  }
}

const ORDER = {
  removeInner: 0,
  removeAccount: 100,
  system: 200,
  account: 300,
  accountSettings: 400,
  item: 500,
  push: 600,
  webhook: 700,
};

/** Plans a lab against a database: reads only; the changes run later (see applyPlan). */
export async function planLab(core: Core, lab: Lab, opts: { prune: boolean }): Promise<Plan> {
  return new Planner(core, lab, opts.prune).plan();
}

interface Matched {
  node: AccountNode;
  existing?: Account;
  parentId?: string;
  depth: number;
}

class Planner {
  private changes: Change[] = [];
  private problems: Problem[] = [];
  readonly generated: Plan['generated'] = [];
  private unmanaged: string[] = [];
  private accounts: Matched[] = [];
  /** the accounts matched, by id (read once every account is matched) */
  private matchedById: Map<string, Matched> | undefined;
  /** collection writes to plan once every id is known (a user's password is checked off the main thread) */
  private pending: (() => Promise<Change | undefined>)[] = [];

  constructor(
    private readonly core: Core,
    private readonly lab: Lab,
    private readonly prune: boolean,
  ) {}

  async plan(): Promise<Plan> {
    const root = this.lab.account;
    const master = masterAccount(this.core);
    if (!root.parent) this.matchAccount(root, master, undefined, 0);
    else if (!master) this.problem(`${root.where}.parent`, `the database has no accounts yet, so no ${root.parent}`);
    else {
      const parent = this.accountAt(master, root.parent);
      if (!parent) this.problem(`${root.where}.parent`, `the database has no account ${root.parent} (a path of names from ${master.name})`);
      else this.matchAccount(root, this.childNamed(parent, root.name, root.where), parent.id, parent.tree.length + 1);
    }
    this.matchCollections();
    if (this.problems.length > 0) throw new PlanRefused(this.problems);
    this.planSystem();
    for (const m of this.accounts) this.planAccount(m);
    // in parallel, kept in their order
    for (const change of await Promise.all(this.pending.map((step) => step()))) if (change) this.changes.push(change);
    if (this.problems.length > 0) throw new PlanRefused(this.problems);
    this.changes.sort((a, b) => a.order - b.order);
    return { changes: this.changes, generated: this.generated, unmanaged: this.unmanaged };
  }

  problem(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  private add(change: Omit<Change, 'order'>, order: number): void {
    this.changes.push({ ...change, order });
  }

  /** The account at a path of names from the master (`Lab/Resellers`), or undefined. */
  private accountAt(master: Account, path: string): Account | undefined {
    const [first, ...rest] = path.split('/');
    if (normaliseName(first) !== normaliseName(master.name)) return undefined;
    let at: Account | undefined = master;
    for (const name of rest) at = at && this.childNamed(at, name, '');
    return at;
  }

  /**
   * The database's accounts below `top` (the root of the tree the file's accounts are in), read
   * once and kept by parent, then by parent and normalised name: matching a tree of any size
   * reads no more.
   */
  private tree: { top: string; children: Map<string, Account[]>; named: Map<string, Map<string, Account[]>> } | undefined;

  private childrenOf(parent: Account): Account[] {
    if (!this.tree || !(this.tree.top === parent.id || parent.tree.includes(this.tree.top))) {
      const top = parent.tree[0] ?? parent.id;
      const children = new Map<string, Account[]>();
      for (const a of listDescendants(this.core, top)) pushTo(children, a.parentId!, a);
      this.tree = { top, children, named: new Map() };
    }
    return this.tree.children.get(parent.id) ?? [];
  }

  private childNamed(parent: Account, name: string, where: string): Account | undefined {
    const children = this.childrenOf(parent);
    let named = this.tree!.named.get(parent.id);
    if (!named) {
      named = new Map();
      for (const c of children) pushTo(named, normaliseName(c.name), c);
      this.tree!.named.set(parent.id, named);
    }
    const found = named.get(normaliseName(name)) ?? [];
    if (found.length > 1) this.problem(where, `the database has ${found.length} accounts named "${name}" under ${parent.name}: rename all but one first`);
    return found[0];
  }

  /** Matches an account and its declared children to the database; gives new ones their ids. */
  private matchAccount(node: AccountNode, existing: Account | undefined, parentId: string | undefined, depth: number): void {
    node.id = existing?.id ?? newId();
    node.realm = String(node.doc.realm ?? existing?.realm ?? defaultRealm(node.id)).toLowerCase();
    this.accounts.push({ node, existing, parentId, depth });
    if (node.apiKey) {
      const holder = findAccountByApiKey(this.core, node.apiKey);
      if (holder && holder.id !== node.id) this.problem(`${node.where}.api_key`, `account ${holder.name} of the database has this API key`);
    }
    const children = existing ? this.childrenOf(existing) : [];
    for (const child of node.children ?? []) {
      this.matchAccount(child, existing ? this.childNamed(existing, child.name, child.where) : undefined, node.id, depth + 1);
    }
    if (!existing || !node.children) return;
    const declared = new Set(node.children.map((c) => normaliseName(c.name)));
    for (const gone of children.filter((c) => !declared.has(normaliseName(c.name)))) this.removeAccount(gone, node.path);
  }

  private removeAccount(account: Account, parentPath: string): void {
    const name = `${parentPath}/${account.name}`;
    if (!this.prune) {
      this.unmanaged.push(`account ${name}`);
      return;
    }
    // the deepest first: an account is removed once it has no sub-accounts left
    const below = listDescendants(this.core, account.id).sort((a, b) => b.tree.length - a.tree.length);
    for (const a of [...below, account]) {
      const shown = a.id === account.id ? name : `${name}/…/${a.name}`;
      this.add({ action: 'remove', kind: 'account', name: shown, run: (core) => void deleteAccount(core, a.id) }, ORDER.removeAccount + (100 - a.tree.length));
    }
  }

  /** Gives every declared object the id of its match in the database, or a new one. */
  private matchCollections(): void {
    for (const m of this.accounts) {
      for (const [kind, items] of m.node.collections) this.matchItems(kind, { accountId: m.node.id }, m.existing !== undefined, items);
    }
    const globals = this.lab.system?.resources;
    if (globals) this.matchItems(GLOBAL_RESOURCES, {}, true, globals);
  }

  /** Each kind's stored objects below the file's root account, by account: one read per kind. */
  private under = new Map<CollectionKind, Map<string, Stored[]>>();
  /** The global collections' objects, read once. */
  private globals = new Map<CollectionKind, Stored[]>();

  private storedOf(kind: CollectionKind, owner: Scope, exists: boolean): Stored[] {
    if (!exists) return [];
    if (!owner.accountId) {
      let list = this.globals.get(kind);
      if (!list) this.globals.set(kind, (list = kind.list(this.core, owner)));
      return list;
    }
    let byAccount = this.under.get(kind);
    if (!byAccount) {
      const root = this.accounts[0]?.existing;
      this.under.set(kind, (byAccount = root ? kind.listUnder(this.core, root.id) : new Map()));
    }
    return byAccount.get(owner.accountId) ?? [];
  }

  /** Matches by the keys `tel export` writes (objects sharing a name are told apart as "CRM (2)"). */
  private matchItems(kind: CollectionKind, owner: Scope, exists: boolean, items: ItemNode[]): void {
    const byKey = new Map<string, string>();
    for (const [id, key] of labKeys(kind, this.storedOf(kind, owner, exists))) byKey.set(kind.keyOf(key), id);
    for (const item of items) item.id = byKey.get(kind.keyOf(item.key)) ?? newId();
  }

  private planSystem(): void {
    const sys = this.lab.system;
    if (!sys) return;
    const refs = this.lab.refs;
    for (const [category, nodes] of sys.configs ?? []) this.planConfig('system config', category, refs.resolve(nodes));
    if (sys.tokenRestrictions) this.planConfig('system restrictions', SYSTEM_TEMPLATE_CATEGORY, { default: refs.resolve(sys.tokenRestrictions) });
    if (sys.configs && this.prune) {
      for (const category of this.core.config.list()) {
        if (category === SYSTEM_TEMPLATE_CATEGORY || sys.configs.has(category)) continue;
        this.add({ action: 'remove', kind: 'system config', name: category, run: (core) => void core.config.remove(category) }, ORDER.system);
      }
    } else if (sys.configs) {
      for (const category of this.core.config.list()) if (category !== SYSTEM_TEMPLATE_CATEGORY && !sys.configs.has(category)) this.unmanaged.push(`system config ${category}`);
    }
    if (sys.resources) this.planItems(GLOBAL_RESOURCES, {}, true, sys.resources, 'system');
  }

  private planConfig(kind: string, category: string, desired: Record<string, unknown>): void {
    const { id: _id, ...current } = this.core.config.get(category) ?? { id: category };
    const fields = nodeFields(desired, current);
    if (fields.length === 0) return;
    const action = this.core.config.get(category) ? 'change' : 'create';
    this.add({ action, kind, name: category, fields: action === 'change' ? fields : undefined, run: (core) => void core.config.set(category, desired) }, ORDER.system);
  }

  private planAccount(m: Matched): void {
    const { node, existing } = m;
    const refs = this.lab.refs;
    const desired = refs.resolve(node.doc);
    desired.realm = node.realm;
    // as the service will: an account without a timezone gets the default one
    desired.timezone ??= defaultTimezone(this.core);
    if (!existing) {
      const superduper = !m.parentId;
      const apiKey = node.apiKey;
      this.add(
        {
          action: 'create',
          kind: 'account',
          name: node.path,
          run: (core) => void createAccount(core, desired, { parentId: m.parentId, id: node.id, superduper, ...(apiKey ? { apiKey } : {}) }),
        },
        ORDER.account + m.depth,
      );
    } else {
      if (!node.tokenRestrictions && existing.doc.restrictions !== undefined) desired.restrictions = existing.doc.restrictions;
      const fields = changedFields(desired, existing.doc).map((f) => (f === 'restrictions' ? 'token_restrictions' : f));
      if (fields.length > 0) {
        this.add({ action: 'change', kind: 'account', name: node.path, fields, run: (core) => void updateAccount(core, existing.id, desired, 'replace', existing.rev) }, ORDER.account + m.depth);
      }
      const apiKey = node.apiKey;
      if (apiKey && apiKey !== existing.apiKey) {
        this.add({ action: 'change', kind: 'account', name: node.path, fields: ['api_key'], run: (core) => void rotateApiKey(core, undefined, existing.id, apiKey) }, ORDER.account + m.depth);
      }
    }
    const id = node.id!;
    if (node.limits) this.planLimits(node, id, existing !== undefined);
    if (node.configs) this.planAccountConfigs(node, id, existing !== undefined, this.plannedReseller(m));
    for (const [kind, items] of node.collections) this.planItems(kind, { accountId: id }, existing !== undefined, items, node.path);
    if (node.pushSubscriptions) this.planPushes(node, id, existing !== undefined);
  }

  private planLimits(node: AccountNode, id: string, exists: boolean): void {
    const limits = this.lab.refs.resolve(node.limits!);
    const name = node.path;
    const run = (core: Core) => void setLimits(core, id, limits, { acceptCharges: true });
    if (!exists) {
      this.add({ action: 'create', kind: 'limits', name, run }, ORDER.accountSettings);
      return;
    }
    const { id: _id, ...current } = getLimits(this.core, id).data;
    const fields = changedFields(quoteLimits(this.core, id, structuredClone(limits)).next, current);
    if (fields.length > 0) this.add({ action: 'change', kind: 'limits', name, fields, run }, ORDER.accountSettings);
  }

  /** The account's configuration categories the file gives, and (to prune) those the account has. */
  private planAccountConfigs(node: AccountNode, id: string, exists: boolean, reseller: string | undefined): void {
    const stored = exists ? accountConfigCategories(this.core.db, id) : [];
    for (const category of new Set([...Object.keys(node.configs!), ...stored])) this.planAccountConfig(node, id, exists, category, reseller);
  }

  /**
   * The reseller of a planned account (Kazoo's `reseller_id`): an existing account's own; a new
   * master account's, itself; another new one's, its parent when that is a reseller, else its
   * parent's reseller (only a master account is created a reseller).
   */
  private plannedReseller(m: Matched): string | undefined {
    if (m.existing) return resellerIdOf(this.core, m.existing);
    if (!m.parentId) return m.node.id;
    const parent = findAccount(this.core, m.parentId);
    if (parent) return parent.reseller ? parent.id : resellerIdOf(this.core, parent);
    this.matchedById ??= new Map(this.accounts.map((a) => [a.node.id!, a]));
    const planned = this.matchedById.get(m.parentId);
    return planned && this.plannedReseller(planned);
  }

  private planAccountConfig(node: AccountNode, id: string, exists: boolean, category: string, reseller: string | undefined): void {
    const current = exists ? (getAccountConfig(this.core.db, id, category)?.doc ?? {}) : {};
    const given = node.configs![category];
    const name = `${node.path} ${category}`;
    if (!given) {
      if (Object.keys(current).length === 0) return;
      if (!this.prune) this.unmanaged.push(`account config ${name}`);
      else this.add({ action: 'remove', kind: 'account config', name, run: (core) => void core.config.resetForAccount(id, category) }, ORDER.accountSettings);
      return;
    }
    // as the service does, only what differs from what the account inherits (the system's, its reseller's) is stored
    const system = this.lab.system?.configs?.get(category)?.default ?? this.core.config.get(category)?.default ?? {};
    const fromReseller = reseller !== undefined && reseller !== id ? this.core.config.forAccount(reseller, category) : null;
    const parent = mergeLayers(this.core.config.builtIn(category) ?? {}, system as Record<string, unknown>, fromReseller ?? {});
    const wanted = differenceFrom(given, parent);
    const fields = changedFields(wanted, current);
    if (fields.length === 0) return;
    const action = Object.keys(current).length === 0 ? 'create' : 'change';
    this.add({ action, kind: 'account config', name, fields: action === 'change' ? fields : undefined, run: (core) => void core.config.changeForAccount(id, category, given, 'replace') }, ORDER.accountSettings);
  }

  private planItems(kind: CollectionKind, owner: Scope, exists: boolean, items: ItemNode[], where: string): void {
    const current = this.storedOf(kind, owner, exists);
    const byId = new Map(current.map((s) => [s.id, s]));
    const order = kind.key === 'webhooks' ? ORDER.webhook : ORDER.item;
    for (const item of items) {
      const match = byId.get(item.id!);
      const name = `${where}/${item.key}`;
      this.pending.push(async (): Promise<Change | undefined> => {
        const desired = unmasked(kind, this.lab.refs.resolve(item.doc), match, { where: item.where, name }, this);
        if (!desired) return undefined;
        kind.prepare?.(this.core, owner, desired);
        const extras = await passwordOf(this.core, owner.accountId, kind, item, match, name, this);
        if (!match) return { action: 'create', kind: kind.label, name, order, run: (core) => kind.create(core, owner, desired, item.id!, extras) };
        const fields = changedFields(desired, match.doc);
        if (extras.password) fields.push('password');
        if (fields.length === 0) return undefined;
        return { action: 'change', kind: kind.label, name, fields, order, run: (core) => kind.update(core, owner, match, desired, extras) };
      });
    }
    const declared = new Set(items.map((i) => i.id));
    const keys = labKeys(kind, current);
    for (const gone of current.filter((s) => !declared.has(s.id))) {
      const name = `${where}/${keys.get(gone.id)}`;
      if (!this.prune) this.unmanaged.push(`${kind.label} ${name}`);
      else this.add({ action: 'remove', kind: kind.label, name, run: (core) => kind.remove(core, owner, gone) }, ORDER.removeInner + (kind.key === 'webhooks' ? 1 : 2));
    }
  }

  private planPushes(node: AccountNode, accountId: string, exists: boolean): void {
    const current = exists ? listSubscriptions(this.core, accountId) : [];
    const byDevice = new Map(current.map((s) => [`${s.appName} ${s.deviceId}`, s]));
    const devices = new Map(([...node.collections].find(([k]) => k.key === 'devices')?.[1] ?? []).map((d) => [d.key, d.id!]));
    const declared = new Set<string>();
    for (const item of node.pushSubscriptions!) {
      const deviceId = devices.get(item.device!)!;
      const app = String(item.doc.app_name);
      declared.add(`${app} ${deviceId}`);
      const desired = { ...this.lab.refs.resolve(item.doc), app_name: app, device_id: deviceId };
      const match = byDevice.get(`${app} ${deviceId}`);
      const name = `${node.path}/${item.device} ${app}`;
      if (!match) {
        this.add({ action: 'create', kind: 'push subscription', name, run: (core) => void createSubscription(core, accountId, app, deviceId, desired) }, ORDER.push);
        continue;
      }
      // POST merges: fields the file leaves out keep their values
      const fields = changedFields(desired, Object.fromEntries(Object.keys(desired).map((k) => [k, match.doc[k]])));
      if (fields.length > 0) {
        this.add({ action: 'change', kind: 'push subscription', name, fields, run: (core) => void updateSubscription(core, accountId, app, deviceId, desired) }, ORDER.push);
      }
    }
    for (const gone of current.filter((s) => !declared.has(`${s.appName} ${s.deviceId}`))) {
      const device = findDoc(this.core, 'device', accountId, gone.deviceId)?.doc.name ?? gone.deviceId;
      const name = `${node.path}/${String(device)} ${gone.appName}`;
      if (!this.prune) this.unmanaged.push(`push subscription ${name}`);
      else this.add({ action: 'remove', kind: 'push subscription', name, run: (core) => void deleteSubscription(core, accountId, gone.appName, gone.deviceId) }, ORDER.removeInner);
    }
  }
}

/** The fields of a configuration document that differ, by node (`default.token_expiry_s`). */
function nodeFields(desired: Record<string, unknown>, current: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const node of new Set([...Object.keys(desired), ...Object.keys(current)])) {
    const a = desired[node];
    const b = current[node];
    if (isObject(a) && isObject(b)) out.push(...changedFields(a, b).map((f) => `${node}.${f}`));
    else if (canonical(a) !== canonical(b)) out.push(node);
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Adds `value` to the list `map` keeps under `key`. */
function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

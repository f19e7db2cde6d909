import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { stmt, transaction, type Db } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';
import type { Core } from '../../core-type.js';
import { nextRevision } from '../../util/ids.js';
import { differenceFrom, isObject, mergeLayers, mergePatch } from '../../util/json.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { accountConfigId, getAccountConfig, KAZOO_ACCOUNT_CONFIG_KEYS, setAccountConfig } from './account-config.js';
import { categoryDefaults, checkConfigDoc, type ConfigCategory, type ConfigDoc } from './categories.js';
import { compileValidator, throwIfErrors, type JsonSchema, type Validator } from '../../schema/validate.js';

export type { ConfigCategory, ConfigCheck, ConfigDoc, ConfigKey } from './categories.js';

/** Kazoo's category names accepted as aliases of the seed's. */
export const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  'crossbar.token_restrictions': 'api.token_restrictions',
  'crossbar.resources': 'api.resources',
};

/** The canonical name of a configuration category. */
export function canonicalCategory(category: string): string {
  return CATEGORY_ALIASES[category] ?? category;
}

/**
 * The checks of accounts' settings (`/v2/accounts/{id}/configs/{category}`) by canonical category,
 * from the JSON Schemas the modules declare (`accountConfigSchemas`).
 */
export function accountConfigValidators(
  modules: readonly { accountConfigSchemas?: Record<string, JsonSchema> }[],
): Record<string, Validator> {
  return Object.fromEntries(
    modules.flatMap((m) => Object.entries(m.accountConfigSchemas ?? {})).map(([c, schema]) => [canonicalCategory(c), compileValidator(schema)]),
  );
}

/**
 * The 400 of an account's settings that set a system-wide key (webhooks `deny_private_networks`)
 * to another value than the system's: stored, it would be silently ignored. The value the account
 * inherits, posted back with a whole document, or null (removing it), is no setting of it.
 */
function systemSettingErrors(
  category: string,
  keys: readonly string[],
  sent: Record<string, unknown>,
  inherited: Record<string, unknown>,
): ValidationErrors | undefined {
  const errs: ValidationErrors = {};
  for (const key of keys) {
    const value = sent[key];
    if (value === undefined || value === null || JSON.stringify(value) === JSON.stringify(inherited[key])) continue;
    const message = `${key} is a system setting, for every account: set it in system_configs/${category} (tel config set ${category} ${key} …); an account cannot override it`;
    errs[key] = { forbidden: { message, value } };
  }
  return Object.keys(errs).length > 0 ? errs : undefined;
}

/** A category's stored document (for the cache). */
function readConfig(category: string, db: Db): ConfigDoc | undefined {
  const row = stmt(db, 'SELECT doc FROM system_configs WHERE category = ?').get(category) as { doc: string } | undefined;
  return row ? (JSON.parse(row.doc) as ConfigDoc) : undefined;
}

/** System configuration (`system_configs`), cached until the database changes. */
export class ConfigService {
  private readonly cache;
  /** built-in settings by canonical category: the declared keys that have a default */
  private readonly defaults: Record<string, Record<string, unknown>> = {};

  constructor(
    private readonly core: Pick<Core, 'db'>,
    /** the categories the modules declare, by canonical name */
    private readonly categories: ReadonlyMap<string, ConfigCategory> = new Map(),
    /** checks of accounts' settings by canonical category (`accountConfigValidators`) */
    private readonly accountValidators: Readonly<Record<string, Validator>> = {},
    /**
     * An account's reseller, as Kazoo's `kz_services_reseller:get_id` answers it: the nearest
     * reseller above it, else the master account (the master's is itself).
     */
    private readonly resellerOf: (accountId: string) => string | undefined = () => undefined,
  ) {
    this.cache = rowCache<ConfigDoc>(core.db, 'system_configs');
    for (const [name, category] of categories) {
      const values = categoryDefaults(category);
      if (Object.keys(values).length > 0) this.defaults[name] = values;
    }
  }

  /**
   * The category as it applies: the stored document with the built-in settings filled in under
   * `default`; null when the category is neither stored nor known.
   */
  withDefaults(category: string): ConfigDoc | null {
    const name = canonicalCategory(category);
    const stored = this.get(name);
    const builtIn = this.defaults[name];
    if (!builtIn) return stored;
    return { ...(stored ?? { id: name }), default: { ...builtIn, ...(stored?.default ?? {}) } };
  }

  /** Categories that have built-in settings. */
  known(): string[] {
    return Object.keys(this.defaults).sort();
  }

  /** The category document, or null when it was never set. */
  get(category: string): ConfigDoc | null {
    const name = canonicalCategory(category);
    return this.cache.get(name, readConfig) ?? null;
  }

  /** An account's overrides of a category (`/v2/accounts/{id}/configs/{category}`), or null. */
  forAccount(accountId: string, category: string): Record<string, unknown> | null {
    return getAccountConfig(this.core.db, accountId, canonicalCategory(category))?.doc ?? null;
  }

  /** Stores an account's overrides of a category (an empty object removes them). */
  setForAccount(accountId: string, category: string, doc: Record<string, unknown>): void {
    setAccountConfig(this.core.db, accountId, canonicalCategory(category), doc);
  }

  /**
   * The reseller's own settings of a category, the middle layer of what an account inherits
   * (Kazoo's `load_config_from_reseller`); null when the account is its own reseller (the master
   * account) or the reseller has none.
   */
  resellerSettings(accountId: string, category: string): Record<string, unknown> | null {
    const reseller = this.resellerOf(accountId);
    return reseller === undefined || reseller === accountId ? null : this.forAccount(reseller, category);
  }

  /**
   * What an account inherits of a category, in Kazoo's order (`kapps_config_util:get_reseller_config`),
   * each layer merged over the one before: the built-in settings, the system `default` node, the
   * reseller's own settings.
   */
  inheritedBy(accountId: string, category: string): Record<string, unknown> {
    const name = canonicalCategory(category);
    return mergeLayers(this.builtIn(name) ?? {}, this.get(name)?.default ?? {}, this.resellerSettings(accountId, name) ?? {});
  }

  /**
   * A category's settings as they apply to an account (`GET /v2/accounts/{id}/configs/{category}`),
   * merged as Kazoo's `kapps_config_util:get_config` does: the account's own over what it inherits
   * (its reseller's over the system `default` node over the built-in settings), with Kazoo's id
   * `configs_<category>`. Of what it inherits the account sees only the keys it may set (see
   * accountKeys), as Kazoo filters the answer through `account_config.<category>`: the system's and
   * its reseller's other settings (an SMTP password) are not its to read. `everything`: the whole
   * of it, for the operator.
   */
  accountView(accountId: string, category: string, everything = false): Record<string, unknown> {
    const name = canonicalCategory(category);
    const inherited = this.inheritedBy(accountId, name);
    const shown = everything ? inherited : pick(inherited, this.accountKeys(name));
    return { ...mergeLayers(shown, this.forAccount(accountId, name) ?? {}), id: accountConfigId(name) };
  }

  /**
   * The keys of a category an account sees of what it inherits: those its account schema lets it
   * set (a module's `accountConfigSchemas`, Kazoo's `account_config.<category>`), and the system
   * settings that apply to it (`systemOnly`: webhooks `deny_private_networks`); none in a category
   * neither declares.
   */
  private accountKeys(category: string): string[] {
    const declared = Object.keys(this.accountValidators[category]?.schema.properties ?? {});
    return [...declared, ...(KAZOO_ACCOUNT_CONFIG_KEYS[category] ?? []), ...this.systemOnlyKeys(category)];
  }

  /**
   * One setting of a category for an account, as Kazoo's `kapps_account_config:get_global` finds
   * it: when the account has settings of the category, its value there, else the system's; when
   * it has none, its reseller's value, else the system's; else the built-in one, else `fallback`.
   */
  globalValue<T>(accountId: string, category: string, key: string, fallback: T): T {
    const name = canonicalCategory(category);
    const own = this.forAccount(accountId, name) ?? this.resellerSettings(accountId, name);
    const found = own?.[key] ?? this.get(name)?.default?.[key] ?? this.builtIn(name)?.[key];
    return found === undefined || found === null ? fallback : (found as T);
  }

  /**
   * Changes an account's settings of a category: `replace` (PUT/POST) keeps what the body sets,
   * `merge` (PATCH) adds it to the current ones. The category's schema, when a module declares
   * one, checks them; as in Kazoo only the difference from what the account inherits (its
   * reseller's, the system's) is stored, so a value equal to the inherited one follows later
   * changes of it. Answers the new view.
   */
  changeForAccount(accountId: string, category: string, input: Record<string, unknown>, mode: 'replace' | 'merge'): Record<string, unknown> {
    const name = canonicalCategory(category);
    const { id: _id, _read_only: _ro, ...body } = input;
    return transaction(this.core.db, () => {
      const parent = this.inheritedBy(accountId, name);
      const systemOnly = this.systemOnlyKeys(name);
      throwIfErrors(systemSettingErrors(name, systemOnly, body, parent));
      // a PATCH merges deeply (null removes), as Kazoo's and the documents' (util/json.ts)
      const merged = mode === 'merge' ? mergePatch(this.forAccount(accountId, name) ?? {}, body) : body;
      const wanted = this.accountValidators[name]?.(merged) ?? merged;
      const diff = differenceFrom(wanted, parent);
      // one stored before such keys were refused is dropped: it never applied
      for (const k of systemOnly) delete diff[k];
      this.setForAccount(accountId, name, diff);
      return this.accountView(accountId, name);
    });
  }

  /** The keys of a category an account may not set (`systemOnly`). */
  private systemOnlyKeys(category: string): string[] {
    const keys = this.categories.get(category)?.keys ?? {};
    return Object.keys(keys).filter((k) => keys[k].systemOnly);
  }

  /** Removes an account's settings of a category; answers what it now inherits. */
  resetForAccount(accountId: string, category: string): Record<string, unknown> {
    this.setForAccount(accountId, category, {});
    return this.accountView(accountId, category);
  }

  /** The settings of a category every account inherits: the system `default` node over the built-in ones. */
  private inherited(category: string): Record<string, unknown> {
    return this.withDefaults(category)?.default ?? {};
  }

  /**
   * One node (a section: `default`, a zone, a `name@host` node) of a category, with its id
   * `<category>/<node>`; `withDefaults` fills in the `default` node and the built-in settings.
   */
  node(category: string, node: string, withDefaults = false): Record<string, unknown> {
    const name = canonicalCategory(category);
    const stored = (this.get(name)?.[node] ?? {}) as Record<string, unknown>;
    const base = withDefaults ? { ...(this.builtIn(name) ?? {}), ...(node === 'default' ? {} : this.inherited(name)) } : {};
    return { ...base, ...stored, id: `${name}/${node}` };
  }

  /**
   * Sets one node of a category: `replace` (POST) with the values sent, `merge` (PATCH) over
   * the stored ones. A node other than `default` keeps only what differs from the `default`
   * node (Kazoo's rule); a node left empty goes. Answers the node as stored.
   */
  setNode(category: string, node: string, input: Record<string, unknown>, mode: 'replace' | 'merge'): Record<string, unknown> {
    const name = canonicalCategory(category);
    const { id: _id, _read_only: _ro, ...values } = input;
    return transaction(this.core.db, () => {
      const { id: _cid, ...nodes } = this.get(name) ?? { id: name };
      const wanted = mode === 'merge' ? mergePatch((nodes[node] ?? {}) as Record<string, unknown>, values) : values;
      let kept = wanted;
      if (node !== 'default') {
        const base = this.inherited(name);
        kept = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => JSON.stringify(base[k]) !== JSON.stringify(v)));
      }
      const next: Record<string, unknown> = { ...nodes, [node]: kept };
      if (node !== 'default' && Object.keys(kept).length === 0) delete next[node];
      this.set(name, { default: {}, ...next });
      return this.node(name, node);
    });
  }

  /** Removes one node of a category; null when there is none. Answers what it held. */
  removeNode(category: string, node: string): Record<string, unknown> | null {
    const name = canonicalCategory(category);
    return transaction(this.core.db, () => {
      const current = this.get(name);
      if (!current || !Object.hasOwn(current, node) || node === 'id') return null;
      const removed = this.node(name, node);
      const { id: _id, [node]: _gone, ...rest } = current;
      this.set(name, { default: {}, ...rest });
      return removed;
    });
  }

  /** `PATCH /v2/system_configs/{category}`: each node sent merged over the stored one. */
  patch(category: string, input: Record<string, unknown>): ConfigDoc {
    const name = canonicalCategory(category);
    const { id: _id, _read_only: _ro, ...rest } = input;
    const sent = isNodeDoc(rest) ? rest : { default: rest };
    return transaction(this.core.db, () => {
      const { id: _cid, ...nodes } = this.get(name) ?? { id: name };
      const merged: Record<string, unknown> = { ...nodes };
      for (const [node, values] of Object.entries(sent)) {
        const before = merged[node];
        merged[node] = isObject(before) && isObject(values) ? mergePatch(before, values) : values;
      }
      return this.set(name, { default: {}, ...merged });
    });
  }

  /** The built-in settings of a category, if a module declares some. */
  builtIn(category: string): Record<string, unknown> | undefined {
    return this.defaults[canonicalCategory(category)];
  }

  /** One setting of the `default` node, or `fallback`. */
  value<T>(category: string, key: string, fallback: T): T {
    const v = this.get(category)?.default?.[key];
    return v === undefined || v === null ? fallback : (v as T);
  }

  /** Replaces a category document; a flat object without `default` becomes the `default` node. */
  set(category: string, doc: Record<string, unknown>): ConfigDoc {
    const name = canonicalCategory(category);
    const { id: _id, _read_only: _ro, ...rest } = doc;
    const nodes = isNodeDoc(rest) ? rest : { default: rest };
    // a copy: the check coerces in place and drops nulls, which are not the caller's to lose
    const stored: ConfigDoc = { id: name, ...structuredClone(nodes) };
    const invalid = checkConfigDoc(this.categories.get(name), stored);
    if (invalid) throw errors.validation(invalid);
    const body = JSON.stringify(stored);
    const prev = stmt(this.core.db, 'SELECT rev FROM system_configs WHERE category = ?').get(name) as
      | { rev: string }
      | undefined;
    stmt(this.core.db, 
        `INSERT INTO system_configs (category, doc, rev, modified) VALUES (?, ?, ?, ?)
         ON CONFLICT(category) DO UPDATE SET doc = excluded.doc, rev = excluded.rev, modified = excluded.modified`,
      )
      .run(name, body, nextRevision(prev?.rev, body), Date.now());
    this.cache.clear(name);
    return stored;
  }

  /** Sets one key of the `default` node, keeping the others. */
  setValue(category: string, key: string, value: unknown): ConfigDoc {
    const current = this.get(category) ?? { id: canonicalCategory(category) };
    const { id: _id, ...nodes } = current;
    return this.set(category, { ...nodes, default: { ...(current.default ?? {}), [key]: value } });
  }

  /** Removes a category document; answers what it held, or null. */
  remove(category: string): ConfigDoc | null {
    const name = canonicalCategory(category);
    const doc = this.get(name);
    stmt(this.core.db, 'DELETE FROM system_configs WHERE category = ?').run(name);
    this.cache.clear(name);
    return doc;
  }

  /** Every stored category name. */
  list(): string[] {
    return (stmt(this.core.db, 'SELECT category FROM system_configs ORDER BY category').all() as { category: string }[]).map(
      (r) => r.category,
    );
  }

  /** A page of the stored categories by name (Kazoo's `system_configs/crossbar_listing`), keyed by `[category]`. */
  page(q: PageQuery<CompoundKey, string>, descending = false): Page<string, CompoundKey> {
    return readKeysetPage<{ category: string }, string>(
      this.core.db,
      { select: 'SELECT category FROM system_configs', where: [], args: [], order: ['category'], descending, keyOf: (r) => [r.category], item: (r) => r.category },
      q,
    );
  }
}

/** The keys of `values` named in `keys`. */
function pick(values: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(values, k)) out[k] = values[k];
  return out;
}

function isNodeDoc(doc: Record<string, unknown>): boolean {
  return isObject(doc.default);
}

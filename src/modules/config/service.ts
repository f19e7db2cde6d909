import { stmt } from '../../store/db.js';
import { rowCache } from '../../store/cache.js';
import type { Core } from '../../core-type.js';
import { nextRevision } from '../../util/ids.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { getAccountConfig, setAccountConfig } from './account-config.js';

/** Kazoo's category names accepted as aliases of the seed's. */
const ALIASES: Record<string, string> = {
  'crossbar.token_restrictions': 'api.token_restrictions',
  'crossbar.resources': 'api.resources',
};

/** The canonical name of a configuration category. */
export function canonicalCategory(category: string): string {
  return ALIASES[category] ?? category;
}

/** A module's check of a category it owns, run before the category is stored (errors: 400). */
export type ConfigCheck = (doc: ConfigDoc) => ValidationErrors | undefined;

/** The check of a category's `default` node by a document check (errors named `default.<key>`). */
export function checkDefaultNode(check: (node: unknown) => ValidationErrors | undefined): ConfigCheck {
  return (doc) => {
    const errs = doc.default === undefined ? undefined : check(doc.default);
    return errs && Object.fromEntries(Object.entries(errs).map(([field, rules]) => [`default.${field}`, rules]));
  };
}

export interface ConfigDoc {
  id: string;
  default?: Record<string, unknown>;
  [node: string]: unknown;
}

/** System configuration (`system_configs`), cached until the database changes. */
export class ConfigService {
  private readonly cache;

  constructor(
    private readonly core: Pick<Core, 'db'>,
    /** built-in settings by canonical category, as modules declare them */
    private readonly defaults: Record<string, Record<string, unknown>> = {},
    /** checks by canonical category, as the modules owning them declare them */
    private readonly checks: Readonly<Record<string, ConfigCheck>> = {},
  ) {
    this.cache = rowCache<ConfigDoc>(core.db, 'system_configs');
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
    const doc = this.cache.get(name, () => {
      const row = stmt(this.core.db, 'SELECT doc FROM system_configs WHERE category = ?').get(name) as { doc: string } | undefined;
      return row ? (JSON.parse(row.doc) as ConfigDoc) : undefined;
    });
    return doc ?? null;
  }

  /** An account's overrides of a category (`/v2/accounts/{id}/configs/{category}`), or null. */
  forAccount(accountId: string, category: string): Record<string, unknown> | null {
    return getAccountConfig(this.core.db, accountId, canonicalCategory(category))?.doc ?? null;
  }

  /** Stores an account's overrides of a category (an empty object removes them). */
  setForAccount(accountId: string, category: string, doc: Record<string, unknown>): void {
    setAccountConfig(this.core.db, accountId, canonicalCategory(category), doc);
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
    const stored: ConfigDoc = { id: name, ...nodes };
    const invalid = this.checks[name]?.(stored);
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
}

function isNodeDoc(doc: Record<string, unknown>): boolean {
  return 'default' in doc && typeof doc.default === 'object' && doc.default !== null && !Array.isArray(doc.default);
}

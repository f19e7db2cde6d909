import type { Core } from '../../core-type.js';
import type { Db } from '../../store/db.js';
import { stmt } from '../../store/db.js';
import type { ConfigCategory } from '../config/categories.js';

/** The configuration category and key Kazoo reads its cluster id from. */
export const CLUSTER_CATEGORY = 'cluster';

/** `cluster`: the cluster id webhook payloads carry. */
export const CLUSTER_CONFIG: ConfigCategory = {
  name: CLUSTER_CATEGORY,
  description: 'The cluster this tel stands for, as webhook payloads name it.',
  keys: {
    cluster_id: {
      type: 'string',
      description: 'The `cluster_id` every webhook payload carries; unset (or empty), the id this database was given when it was made.',
    },
  },
};

const stored = new WeakMap<Db, string>();

/**
 * The cluster id every webhook payload carries, as Kazoo's webhooks app adds it: the `cluster`
 * category's `cluster_id` when set, else the id the database was given when it was made.
 */
export function clusterId(core: Core): string {
  const configured = core.config.value<unknown>(CLUSTER_CATEGORY, 'cluster_id', undefined);
  if (typeof configured === 'string' && configured !== '') return configured;
  let id = stored.get(core.db);
  // Stryker disable next-line ConditionalExpression: reading the row again each time answers the same id
  if (id === undefined) {
    // Stryker disable next-line OptionalChaining: every database is given its row when it is made
    id = (stmt(core.db, "SELECT value FROM meta WHERE key = 'cluster_id'").get() as { value: string } | undefined)?.value ?? '';
    // Stryker disable next-line CallExpression: only a cache; the row answers the same id
    stored.set(core.db, id);
  }
  return id;
}

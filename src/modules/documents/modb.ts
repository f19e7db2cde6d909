import type { Core } from '../../core-type.js';
import { newId } from '../../util/ids.js';
import { readKeysetPage, windowConditions, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import type { TimeWindow } from '../../util/time.js';
import { fromRow, type Row, type StoredDoc } from './store.js';

// What Kazoo keeps in an account's per-month databases (its "MODBs": recordings, messages,
// faxes, queue statistics) is kept in `docs` like any document, with Kazoo's ids and listings:
// an id that starts with its month, and listings bounded in time, newest first.

/**
 * A document id as Kazoo makes those of its per-month databases: `YYYYMM-<rest>`, the UTC month of
 * `atMs`, then a new 32-hex id unless the kind names its own (a call id, a content hash).
 */
export function modbId(atMs: number = Date.now(), rest: string = newId()): string {
  const d = new Date(atMs);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}-${rest}`;
}

/** A listing of a per-month kind: the window it covers (all of it when absent), the page, and which way it runs. */
export interface ModbQuery extends PageQuery<CompoundKey> {
  window?: Required<TimeWindow>;
  descending: boolean;
}

/**
 * One page of an account's documents of a kind created in a window (or ever), keyed by `[created, id]`;
 * their private fields are read only `withPvt` (a listing that shows some of them).
 */
export function modbPage(core: Core, kind: string, accountId: string, q: ModbQuery, withPvt = false): Page<StoredDoc, CompoundKey> {
  const w = q.window ? windowConditions('created', q.window.createdFrom, q.window.createdTo, q.startKey, q.descending) : { where: [], args: [] };
  return readKeysetPage<Row, StoredDoc>(
    core.db,
    {
      select: `SELECT id, kind, account_id, doc, ${withPvt ? 'pvt' : "'{}' AS pvt"}, rev, created, modified FROM docs`,
      where: ['account_id = ?', 'kind = ?', ...w.where],
      args: [accountId, kind, ...w.args],
      order: ['created', 'id'],
      descending: q.descending,
      keyOf: (r) => [r.created, r.id],
      item: fromRow,
    },
    q,
  );
}

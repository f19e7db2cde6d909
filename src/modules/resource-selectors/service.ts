import type { SQLInputValue } from 'node:sqlite';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { keysetPage, pageLimit, readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { getAccount } from '../accounts/service.js';
import { documentService } from '../documents/crud.js';
import { findDoc, findOnlyDoc, insertChosenId, insertDoc, publicDoc, updateDoc, type StoredDoc } from '../documents/store.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { resourceSelectorRulesSchema, resourceSelectorSchema } from './schema.js';

/** Resource selectors: which resource a selector (`name`) picks for a value (`selector`), as Kazoo's stepswitch reads them. */
export const resourceSelectors = documentService({ kind: 'resource_selector', endpoint: 'resource_selectors', summary: [], schema: resourceSelectorSchema });

const SELECTOR = 'resource_selector';

/** A selector's row in the listings of selectors, as Kazoo's mapper writes it. */
export function selectorRow(d: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = { id: d.id };
  for (const f of ['name', 'resource', 'selector', 'value', 'start_time', 'stop_time']) if (d.doc[f] !== undefined) row[f] = d.doc[f];
  return row;
}

/** A page of an account's selectors, oldest first (or only those of a name and a resource). */
export function selectorsPage(core: Core, accountId: string, q: PageQuery<CompoundKey, StoredDoc>, descending: boolean, of?: { name: string; resource: string }): Page<StoredDoc, CompoundKey> {
  getAccount(core, accountId);
  if (!of) return resourceSelectors.page(core, accountId, q, descending);
  return readKeysetPage<{ id: string; doc: string; rev: string; created: number; modified: number }, StoredDoc>(
    core.db,
    {
      select: 'SELECT id, doc, rev, created, modified FROM docs',
      where: ['account_id = ?', `kind = '${SELECTOR}'`, "json_extract(doc, '$.name') = ?", "json_extract(doc, '$.resource') = ?"],
      args: [accountId, of.name, of.resource],
      order: ['id'],
      descending,
      keyOf: (r) => [r.id],
      item: (r) => ({ id: r.id, kind: SELECTOR, accountId, doc: JSON.parse(r.doc), pvt: {}, rev: r.rev, created: r.created, modified: r.modified }),
    },
    q,
  );
}

/** How many selectors a name or a resource has, as Kazoo's grouped views count them. */
export interface SelectorCount {
  key: string;
  count: number;
}

/**
 * A page of the counts of an account's selectors by `group` (`name` or `resource`), in its order,
 * or only those with `within`'s field at its value (a name's resources, a resource's names): a
 * range of `docs_selectors_by_name` or `…_by_resource` (migration 4000), counted as read.
 */
export function selectorCounts(
  core: Core,
  accountId: string,
  group: 'name' | 'resource',
  q: PageQuery<string>,
  within?: { field: 'name' | 'resource'; value: string },
): Page<SelectorCount, string> {
  getAccount(core, accountId);
  const key = `json_extract(doc, '$.${group}')`;
  const where = ['account_id = ?', `kind = '${SELECTOR}'`];
  const args: SQLInputValue[] = [accountId];
  if (within) {
    where.push(`json_extract(doc, '$.${within.field}') = ?`);
    args.push(within.value);
  }
  if (q.startKey !== undefined) {
    where.push(`${key} >= ?`);
    args.push(q.startKey);
  }
  const rows = stmt(core.db, `SELECT ${key} AS key, count(*) AS count FROM docs WHERE ${where.join(' AND ')} GROUP BY ${key} ORDER BY ${key} LIMIT ?`).all(
    ...args,
    pageLimit(q),
  ) as unknown as SelectorCount[];
  return keysetPage(rows, q, (r) => r.key);
}

/** A selector's id is a path segment Kazoo takes as it is: tel keeps it to what an id looks like. */
const SELECTOR_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Writes a selector (`POST …/resource_selectors/{id}`, Kazoo's only write of one): a new one
 * with that id, or the one stored, replaced (`merge`: merged into). An id another document of
 * tel holds is a 409.
 */
export function putSelector(core: Core, accountId: string, id: string, input: Record<string, unknown>, mode: 'replace' | 'merge', ifMatch?: string): StoredDoc {
  if (!SELECTOR_ID.test(id)) throw errors.invalidField('id', 'pattern', 'A selector id is 1 to 64 letters, digits, dots, dashes or underscores', { value: id });
  return transaction(core.db, () => {
    getAccount(core, accountId);
    if (findDoc(core, SELECTOR, accountId, id)) return resourceSelectors.update(core, accountId, id, input, mode, ifMatch);
    return insertChosenId(() => resourceSelectors.create(core, accountId, input, id));
  });
}

/** The rules document answers with Kazoo's id for it. */
const RULES_ID = 'resource_selector_rules';
const RULES = 'resource_selector_rules';
const validateRules = compileValidator(resourceSelectorRulesSchema);

/** An account's selector rules (the chain stepswitch runs), with Kazoo's id; a 404 when it has none. */
export function getRules(core: Core, accountId: string): { doc: Record<string, unknown>; rev: string } {
  getAccount(core, accountId);
  const d = findOnlyDoc(core, RULES, accountId);
  if (!d) throw errors.badIdentifier(RULES_ID);
  return { doc: { ...publicDoc(d), id: RULES_ID }, rev: d.rev };
}

/** Sets an account's selector rules (merged into those stored, as Kazoo's `load_merge`); answers them. */
export function setRules(core: Core, accountId: string, input: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rules } = input;
  throwIfErrors(validateRules.check(rules));
  return transaction(core.db, () => {
    getAccount(core, accountId);
    const current = findOnlyDoc(core, RULES, accountId);
    const d = current ? updateDoc(core, current, { ...current.doc, ...rules }) : insertDoc(core, RULES, accountId, rules);
    return { ...publicDoc(d), id: RULES_ID };
  });
}

import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { checkRevision, newId, nextRevision } from '../../util/ids.js';
import { stmt, transaction } from '../../store/db.js';
import { deleteAttachments } from './files.js';
import type { SQLInputValue } from 'node:sqlite';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { SUBTREE_IDS_SQL } from '../accounts/tree-index.js';
import { wholeDoc } from '../../util/doc-filter.js';

/** One stored document of the `docs` table. */
export interface StoredDoc {
  id: string;
  kind: string;
  accountId: string;
  doc: Record<string, unknown>;
  pvt: Record<string, unknown>;
  rev: string;
  created: number;
  modified: number;
}

/** Document kinds whose changes publish `object` events, and the event `type` they carry. */
export const OBJECT_TYPES: Record<string, string> = {
  account: 'account',
  user: 'user',
  device: 'device',
  callflow: 'callflow',
  vmbox: 'vmbox',
  faxbox: 'faxbox',
  media: 'media',
};

/** A row of `docs` as SQLite gives it. */
export interface Row {
  id: string;
  kind: string;
  account_id: string;
  doc: string;
  pvt: string;
  rev: string;
  created: number;
  modified: number;
}

/** A `docs` row as a stored document. */
export function fromRow(r: Row): StoredDoc {
  return {
    id: r.id,
    kind: r.kind,
    accountId: r.account_id,
    doc: JSON.parse(r.doc),
    pvt: JSON.parse(r.pvt),
    rev: r.rev,
    created: r.created,
    modified: r.modified,
  };
}

/**
 * Removes what a client may send back from a document it read but may not set: the id, the
 * revision, `_read_only` and other `_`/`pvt_` keys (Monster UI posts whole documents back).
 */
export function stripServerFields(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (k === 'id' || k.startsWith('_') || k.startsWith('pvt_')) continue;
    out[k] = v;
  }
  return out;
}

/** The public view of a document: its fields plus `id`. */
export function publicDoc(d: StoredDoc): Record<string, unknown> {
  return { ...d.doc, id: d.id };
}

/**
 * A stored document as a listing's filters see it: `fields` (its public view, `publicDoc`'s fields
 * unless the kind shows it otherwise) and the private fields Kazoo keeps beside it.
 */
export function filterDoc(d: StoredDoc, fields: Readonly<Record<string, unknown>> = d.doc): Record<string, unknown> {
  return wholeDoc(fields, { id: d.id, type: d.kind, rev: d.rev, accountId: d.accountId, created: d.created, modified: d.modified });
}

/** Reads one document of a kind in an account, or undefined. */
export function findDoc(core: Core, kind: string, accountId: string, id: string): StoredDoc | undefined {
  const r = stmt(core.db, 'SELECT * FROM docs WHERE id = ? AND kind = ? AND account_id = ?')
    .get(id, kind, accountId) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** Reads one document or throws the 404 `bad_identifier`. */
export function getDoc(core: Core, kind: string, accountId: string, id: string): StoredDoc {
  const d = findDoc(core, kind, accountId, id);
  if (!d) throw errors.badIdentifier(id);
  return d;
}

/**
 * The document of a kind an account keeps one of (its storage settings, its allotments), or of
 * one owner in it (`pvt.owner_id`: a device's rate limits), or undefined.
 */
export function findOnlyDoc(core: Core, kind: string, accountId: string, ownerId?: string): StoredDoc | undefined {
  const r = (
    ownerId === undefined
      ? stmt(core.db, 'SELECT * FROM docs WHERE account_id = ? AND kind = ? ORDER BY created, id LIMIT 1').get(accountId, kind)
      : stmt(core.db, "SELECT * FROM docs WHERE account_id = ? AND kind = ? AND json_extract(pvt, '$.owner_id') = ? ORDER BY created, id LIMIT 1").get(accountId, kind, ownerId)
  ) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** Every document of a kind in an account, oldest first. */
export function listDocs(core: Core, kind: string, accountId: string): StoredDoc[] {
  return (
    stmt(core.db, 'SELECT * FROM docs WHERE account_id = ? AND kind = ? ORDER BY created, id')
      .all(accountId, kind) as unknown as Row[]
  ).map(fromRow);
}

/** Every document of a kind in an account and every account below it, by account, oldest first: one read (`tel apply` plans with it). */
export function listDocsUnder(core: Core, kind: string, accountId: string): StoredDoc[] {
  return (
    stmt(core.db, `SELECT * FROM docs WHERE kind = ?2 AND account_id IN (${SUBTREE_IDS_SQL}) ORDER BY account_id, created, id`)
      .all(accountId, kind) as unknown as Row[]
  ).map(fromRow);
}

/** A kind's name as SQL text: kinds are names of tel's code (`list_entry`), never a client's. */
function kindLiteral(kind: string): string {
  if (!/^[a-z_]+$/.test(kind)) throw new Error(`not a document kind: ${kind}`);
  return kind;
}

/** Conditions on the documents a listing answers beyond their account and kind (a list's entries), SQL over `docs`. */
export interface DocsWhere {
  where: string[];
  args: SQLInputValue[];
  /** the partial index that holds exactly those documents, in the listing's order (SQLite would take the kind's) */
  index?: string;
}

const EVERY_DOC: DocsWhere = { where: [], args: [] };

/**
 * A page of an account's documents of a kind, oldest first (newest first when `descending`),
 * keyed by `[created, id]`; only those meeting `also` (an index's condition). Their private
 * fields are not read (listings never show them).
 */
export function docsPage(
  core: Core,
  kind: string,
  accountId: string,
  q: PageQuery<CompoundKey, StoredDoc>,
  descending = false,
  also: DocsWhere = EVERY_DOC,
): Page<StoredDoc, CompoundKey> {
  return readKeysetPage<Row, StoredDoc>(
    core.db,
    {
      select: `SELECT id, kind, account_id, doc, '{}' AS pvt, rev, created, modified FROM docs${also.index ? ` INDEXED BY ${also.index}` : ''}`,
      // the kind written out, not bound: a partial index of one kind (a list's entries) is then usable
      where: ['account_id = ?', `kind = '${kindLiteral(kind)}'`, ...also.where],
      args: [accountId, ...also.args],
      order: ['created', 'id'],
      descending,
      keyOf: (r) => [r.created, r.id],
      item: fromRow,
    },
    q,
  );
}

/** The private fields of documents by id, in one statement (a page of a listing is read without them). */
export function privateFields(core: Core, ids: string[]): Map<string, Record<string, unknown>> {
  if (ids.length === 0) return new Map();
  const rows = stmt(core.db, 'SELECT id, pvt FROM docs WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as { id: string; pvt: string }[];
  return new Map(rows.map((r) => [r.id, JSON.parse(r.pvt) as Record<string, unknown>]));
}

/** What happened to a stored object, as `object` webhooks name it. */
export type ObjectAction = 'doc_created' | 'doc_edited' | 'doc_deleted';

/** Publishes the `object` event of a change to an object of `type` (`account`, `device`, …) in an account; answers its payload. */
export function publishObject(core: Core, type: string, id: string, accountId: string, action: ObjectAction): Record<string, unknown> {
  const payload = { id, account_id: accountId, action, type };
  core.bus.publish({ type: 'object', accountId, payload });
  return payload;
}

function publishDocChange(core: Core, d: StoredDoc, action: ObjectAction): void {
  const type = OBJECT_TYPES[d.kind];
  if (type) publishObject(core, type, d.id, d.accountId, action);
}

/**
 * Inserts a new document with an id chosen for it (a rate's, made of what it says; the account's,
 * for its storage settings; a selector's, from its path): an id any document of tel holds already
 * is a 409, as Kazoo's save answers it, after the document was checked.
 */
export function insertChosenId(insert: () => StoredDoc): StoredDoc {
  try {
    return insert();
  } catch (err) {
    // SQLITE_CONSTRAINT_PRIMARYKEY: the id is taken
    if ((err as { errcode?: number }).errcode === 1555) throw errors.conflict();
    throw err;
  }
}

/** Inserts a new document and publishes `doc_created`. */
export function insertDoc(
  core: Core,
  kind: string,
  accountId: string,
  doc: Record<string, unknown>,
  pvt: Record<string, unknown> = {},
  id: string = newId(),
): StoredDoc {
  return transaction(core.db, () => {
    const now = Date.now();
    const body = JSON.stringify(doc);
    const rev = nextRevision(undefined, body);
    stmt(core.db, 'INSERT INTO docs (id, kind, account_id, doc, pvt, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, kind, accountId, body, JSON.stringify(pvt), rev, now, now);
    const stored: StoredDoc = { id, kind, accountId, doc, pvt, rev, created: now, modified: now };
    publishDocChange(core, stored, 'doc_created');
    return stored;
  });
}

/**
 * Replaces a document's fields, checking `ifMatch` (a revision) when given: a stale revision is a
 * 412, a change since `current` was read a 409. Publishes `doc_edited`.
 */
export function updateDoc(
  core: Core,
  current: StoredDoc,
  doc: Record<string, unknown>,
  pvt: Record<string, unknown> = current.pvt,
  ifMatch?: string,
): StoredDoc {
  return transaction(core.db, () => {
    const body = JSON.stringify(doc);
    const rev = nextRevision(current.rev, body);
    const now = Date.now();
    checkRevision(current.rev, ifMatch);
    const res = stmt(core.db, 'UPDATE docs SET doc = ?, pvt = ?, rev = ?, modified = ? WHERE id = ? AND rev = ?')
      .run(body, JSON.stringify(pvt), rev, now, current.id, current.rev);
    if (res.changes === 0) throw errors.conflict();
    const stored: StoredDoc = { ...current, doc, pvt, rev, modified: now };
    publishDocChange(core, stored, 'doc_edited');
    return stored;
  });
}

/** Deletes a document for good, with its attachments, and publishes `doc_deleted` (`ifMatch` as updateDoc's). */
export function deleteDoc(core: Core, current: StoredDoc, ifMatch?: string): void {
  transaction(core.db, () => {
    checkRevision(current.rev, ifMatch);
    const res = stmt(core.db, 'DELETE FROM docs WHERE id = ? AND rev = ?').run(current.id, current.rev);
    if (res.changes === 0) throw errors.conflict();
    deleteAttachments(core, current.id);
    publishDocChange(core, current, 'doc_deleted');
  });
}

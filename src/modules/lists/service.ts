import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { documentService } from '../documents/crud.js';
import { findAttachment } from '../documents/files.js';
import { docsPage, publicDoc, type StoredDoc } from '../documents/store.js';
import { userVcard } from '../users/vcard.js';
import { listEntrySchema, listSchema } from './schema.js';

/** Lists: numbers, prefixes and patterns a callflow matches a caller against. */
export const lists = documentService({
  kind: 'list',
  endpoint: 'lists',
  summary: ['name', 'description', 'list_type'],
  rowFields: { list_type: { type: 'string' } },
  schema: listSchema,
});

/** The entries of lists, each its own document naming its list (`list_id`), as Kazoo keeps them. */
export const listEntries = documentService({ kind: 'list_entry', endpoint: 'entries', summary: [], schema: listEntrySchema });

/** The fields of an entry Kazoo's `lists/entries` view answers as a row's `value`. */
const ENTRY_FIELDS = ['capture_group_key', 'capture_group_length', 'name', 'number', 'pattern', 'prefix', 'regexp', 'type'];

/** An entry as Kazoo's `lists/entries` view answers it: `{id, key: list_id, value: {…}}`. */
export function entryRow(d: Pick<StoredDoc, 'id' | 'doc'>): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const f of ENTRY_FIELDS) if (d.doc[f] !== undefined) value[f] = d.doc[f];
  return { id: d.id, key: d.doc.list_id, value };
}

/** A page of a list's entries, oldest first (a 404 for an unknown list): one range of `docs_list_entries`. */
export function entriesPage(core: Core, accountId: string, listId: string, q: PageQuery<CompoundKey>, descending = false): Page<StoredDoc, CompoundKey> {
  lists.get(core, accountId, listId);
  return docsPage(core, 'list_entry', accountId, q, descending, { where: ["json_extract(doc, '$.list_id') = ?"], args: [listId], index: 'docs_list_entries' });
}

/** One entry of a list: a 404 when it is not an entry of that list. */
export function getEntry(core: Core, accountId: string, listId: string, entryId: string): StoredDoc {
  const d = listEntries.get(core, accountId, entryId);
  if (d.doc.list_id !== listId) throw errors.badIdentifier(entryId);
  return d;
}

/** Adds an entry to a list (which must exist); its `list_id` is the list's. */
export function createEntry(core: Core, accountId: string, listId: string, input: Record<string, unknown>): StoredDoc {
  return transaction(core.db, () => {
    lists.get(core, accountId, listId);
    return listEntries.create(core, accountId, { ...input, list_id: listId });
  });
}

/** Changes an entry of a list (`replace`: POST, `merge`: PATCH); it stays in its list. */
export function updateEntry(
  core: Core,
  accountId: string,
  listId: string,
  entryId: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
  ifMatch?: string,
): StoredDoc {
  return transaction(core.db, () => {
    getEntry(core, accountId, listId, entryId);
    return listEntries.update(core, accountId, entryId, { ...input, list_id: listId }, mode, ifMatch);
  });
}

/** Removes an entry of a list. */
export function removeEntry(core: Core, accountId: string, listId: string, entryId: string, ifMatch?: string): StoredDoc {
  return transaction(core.db, () => {
    getEntry(core, accountId, listId, entryId);
    return listEntries.remove(core, accountId, entryId, ifMatch);
  });
}

/** Removes every entry of a list, in one statement (with their photos); answers them as the entries listing shows them. */
export function clearEntries(core: Core, accountId: string, listId: string): Record<string, unknown>[] {
  return transaction(core.db, () => {
    lists.get(core, accountId, listId);
    const gone = stmt(
      core.db,
      "DELETE FROM docs INDEXED BY docs_list_entries WHERE account_id = ? AND kind = 'list_entry' AND json_extract(doc, '$.list_id') = ? RETURNING id, doc",
    ).all(accountId, listId) as { id: string; doc: string }[];
    stmt(core.db, 'DELETE FROM doc_attachments WHERE doc_id IN (SELECT value FROM json_each(?))').run(JSON.stringify(gone.map((g) => g.id)));
    return gone.map((g) => entryRow({ id: g.id, doc: JSON.parse(g.doc) as Record<string, unknown> }));
  });
}

/** Removes a list with its entries, as Kazoo does. */
export function removeList(core: Core, accountId: string, listId: string, ifMatch?: string): StoredDoc {
  return transaction(core.db, () => {
    clearEntries(core, accountId, listId);
    return lists.remove(core, accountId, listId, ifMatch);
  });
}

/** The attachment name of an entry's photo (Kazoo's, as a user's). */
export const ENTRY_PHOTO = 'photo';

/**
 * An entry as a vCard, as Kazoo makes one: its fields and its `profile`'s, `firstname`,
 * `lastname` and `displayname` as the card's name and nickname, the list's `org`, its photo.
 */
export function entryVcard(core: Core, accountId: string, listId: string, entryId: string): string {
  const entry = getEntry(core, accountId, listId, entryId);
  const list = lists.get(core, accountId, listId);
  const e = entry.doc;
  const card: Record<string, unknown> = { ...publicDoc(entry), first_name: e.firstname, last_name: e.lastname, middle_name: e.middlename };
  if (typeof e.displayname === 'string') card.nicknames = [e.displayname];
  const org = list.doc.org;
  return userVcard(card, { org: typeof org === 'string' ? org : undefined, photo: findAttachment(core, entry.id, ENTRY_PHOTO) });
}

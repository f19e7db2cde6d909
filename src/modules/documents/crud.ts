import type { Core } from '../../core-type.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { compileValidator, mergeErrors, throwIfErrors, type JsonSchema } from '../../schema/validate.js';
import type { ValidationErrors } from '../../errors.js';
import { mergePatch } from '../../util/json.js';
import {
  deleteDoc,
  docsPage,
  getDoc,
  insertDoc,
  listDocs,
  stripServerFields,
  updateDoc,
  type StoredDoc,
} from './store.js';
import { transaction } from '../../store/db.js';

/** A plain document kind served at `/v2/accounts/{id}/<endpoint>[/{doc_id}]`. */
export interface DocumentKind {
  /** stored kind (`device`) */
  kind: string;
  /** endpoint name (`devices`) */
  endpoint: string;
  schema: JsonSchema;
  /** fields shown in listings besides `id` (those the kind's schema types; see `rows`) */
  summary: string[];
  /**
   * A listing row as Kazoo's view emits it, where it computes fields (`flags` as `[]` when absent, a
   * count): answers `summary`'s fields, those the kind's schema lacks typed in `rowFields`.
   */
  row?(d: StoredDoc): Record<string, unknown>;
  /**
   * A page's listing rows as Kazoo's view for the kind emits them (its `crossbar_listing` map,
   * and what its crossbar module adds) when a row needs more than its document: the whole page at
   * once, so that what rows add is read in one statement. Takes the place of `row`.
   */
  rows?(core: Core, docs: StoredDoc[]): Record<string, unknown>[];
  /** the JSON Schemas of the row's fields that are not the document's (see `row`, `rows`) */
  rowFields?: Record<string, JsonSchema>;
  /** private fields a new document gets (a fax box's SMTP address) */
  newPrivate?(core: Core, accountId: string): Record<string, unknown>;
  /** what Kazoo's module copies from the private fields into its create and change answers (`leak_private_fields`) */
  leak?(d: StoredDoc): Record<string, unknown>;
  /** the JSON Schemas of the fields `leak` adds */
  leakFields?: Record<string, JsonSchema>;
  /** what Kazoo's module adds to the answer of a GET of one document (a callflow's `metadata`) */
  readExtra?(core: Core, d: StoredDoc): Record<string, unknown>;
  /** the JSON Schemas of the fields `readExtra` adds */
  readFields?: Record<string, JsonSchema>;
  /**
   * Kazoo's rewriting of a document before it is validated (a callflow's numbers written as
   * E.164), in place.
   */
  prepare?(core: Core, accountId: string, doc: Record<string, unknown>): void;
  /**
   * Kazoo's checks beyond the schema (a number unique in the account, …), on the document as it
   * will be stored; `selfId` is the document's own id when it is changed.
   */
  check?(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined;
  /**
   * What a change keeps of the stored document that its sender could not read: masked values
   * (a gateway's password) posted back mean "unchanged". Answers the change with them filled in.
   */
  keep?(incoming: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown>;
}

/** The service operations of a plain document kind, used by HTTP and CLI alike. */
export interface DocumentService {
  kind: DocumentKind;
  list(core: Core, accountId: string): StoredDoc[];
  /** one page of the account's documents, oldest first (newest first when `descending`) */
  page(core: Core, accountId: string, q: PageQuery<CompoundKey>, descending?: boolean): Page<StoredDoc, CompoundKey>;
  get(core: Core, accountId: string, id: string): StoredDoc;
  /** `id` may be chosen (`tel apply` decides ids while planning), else it is generated */
  create(core: Core, accountId: string, input: Record<string, unknown>, id?: string): StoredDoc;
  update(core: Core, accountId: string, id: string, input: Record<string, unknown>, mode: 'replace' | 'merge', ifMatch?: string): StoredDoc;
  remove(core: Core, accountId: string, id: string, ifMatch?: string): StoredDoc;
}

/** Builds the create/read/update/delete operations of a kind from its schema. */
export function documentService(kind: DocumentKind): DocumentService {
  const validate = compileValidator(kind.schema);
  /** The kind's rewriting, the schema, then the kind's own checks; the document is changed in place (defaults, string forms). */
  const checked = (core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string) => {
    kind.prepare?.(core, accountId, doc);
    throwIfErrors(mergeErrors(validate.check(doc), kind.check?.(core, accountId, doc, selfId)));
    return doc;
  };
  return {
    kind,
    list: (core, accountId) => listDocs(core, kind.kind, accountId),
    page: (core, accountId, q, descending) => docsPage(core, kind.kind, accountId, q, descending),
    get: (core, accountId, id) => getDoc(core, kind.kind, accountId, id),
    create(core, accountId, input, id) {
      return transaction(core.db, () => insertDoc(core, kind.kind, accountId, checked(core, accountId, stripServerFields(input)), kind.newPrivate?.(core, accountId) ?? {}, id));
    },
    update(core, accountId, id, input, mode, ifMatch) {
      return transaction(core.db, () => {
        const current = getDoc(core, kind.kind, accountId, id);
        const sent = stripServerFields(input);
        const incoming = kind.keep ? kind.keep(sent, current.doc) : sent;
        // a PATCH merges into the stored document and the whole is validated, as Kazoo does
        const doc = checked(core, accountId, mode === 'merge' ? mergePatch(current.doc, incoming) : incoming, id);
        return updateDoc(core, current, doc, current.pvt, ifMatch);
      });
    },
    remove(core, accountId, id, ifMatch) {
      return transaction(core.db, () => {
        const current = getDoc(core, kind.kind, accountId, id);
        deleteDoc(core, current, ifMatch);
        return current;
      });
    },
  };
}

/** A listing row of a document: its id and the kind's summary fields it has (or its `row`). */
export function documentSummary(kind: DocumentKind, d: StoredDoc): Record<string, unknown> {
  if (kind.row) return { id: d.id, ...kind.row(d) };
  const row: Record<string, unknown> = { id: d.id };
  for (const f of kind.summary) if (d.doc[f] !== undefined) row[f] = d.doc[f];
  return row;
}

/** A page's documents of a kind as its listing rows: its `rows`, else each one's. */
export function kindRows(kind: DocumentKind, core: Core, docs: StoredDoc[]): Record<string, unknown>[] {
  return kind.rows ? kind.rows(core, docs) : docs.map((d) => documentSummary(kind, d));
}

/**
 * The rows of Kazoo's `crossbar_listing` views that name a few fields and `flags` (`[]` when the
 * document has none): the `row` of a kind.
 */
export function flaggedRow(fields: readonly string[]): (d: StoredDoc) => Record<string, unknown> {
  return (d) => {
    const row: Record<string, unknown> = {};
    for (const f of fields) if (d.doc[f] !== undefined) row[f] = d.doc[f];
    row.flags = d.doc.flags ?? [];
    return row;
  };
}

import type { Core } from '../../core-type.js';
import { writeRoutes, type RouteDef } from '../../http/router.js';
import { dataObject, ifMatchOf } from '../../http/request.js';
import { ordered, paginate } from '../../http/paging.js';
import { compileValidator, type JsonSchema } from '../../schema/validate.js';
import {
  deleteDoc,
  getDoc,
  insertDoc,
  listDocs,
  publicDoc,
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
  /** fields shown in listings besides `id` */
  summary: string[];
}

/** The service operations of a plain document kind, used by HTTP and CLI alike. */
export interface DocumentService {
  kind: DocumentKind;
  list(core: Core, accountId: string): StoredDoc[];
  get(core: Core, accountId: string, id: string): StoredDoc;
  /** `id` may be chosen (`tel apply` decides ids while planning), else it is generated */
  create(core: Core, accountId: string, input: Record<string, unknown>, id?: string): StoredDoc;
  update(core: Core, accountId: string, id: string, input: Record<string, unknown>, mode: 'replace' | 'merge', ifMatch?: string): StoredDoc;
  remove(core: Core, accountId: string, id: string, ifMatch?: string): StoredDoc;
}

/** Builds the create/read/update/delete operations of a kind from its schema. */
export function documentService(kind: DocumentKind): DocumentService {
  const validate = compileValidator(kind.schema);
  return {
    kind,
    list: (core, accountId) => listDocs(core, kind.kind, accountId),
    get: (core, accountId, id) => getDoc(core, kind.kind, accountId, id),
    create(core, accountId, input, id) {
      const doc = validate(stripServerFields(input));
      return insertDoc(core, kind.kind, accountId, doc, {}, id);
    },
    update(core, accountId, id, input, mode, ifMatch) {
      return transaction(core.db, () => {
        const current = getDoc(core, kind.kind, accountId, id);
        const incoming = stripServerFields(input);
        const doc = validate(mode === 'merge' ? { ...current.doc, ...incoming } : incoming);
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

/** A listing row of a document: its id and the kind's summary fields it has. */
export function documentSummary(kind: DocumentKind, d: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = { id: d.id };
  for (const f of kind.summary) if (d.doc[f] !== undefined) row[f] = d.doc[f];
  return row;
}

/** The HTTP routes of a plain document kind. */
export function documentRoutes(svc: DocumentService): RouteDef[] {
  const base = `accounts/:account_id/${svc.kind.endpoint}`;
  const one = `${base}/:doc_id`;
  return [
    {
      method: 'GET',
      path: base,
      handler: (ctx, core) => {
        const rows = svc.list(core, ctx.params.account_id).map((d) => documentSummary(svc.kind, d));
        const { page, extras } = paginate(ordered(rows, ctx.query), ctx.query);
        return { data: page, extras };
      },
    },
    {
      method: 'PUT',
      path: base,
      body: svc.kind.schema,
      handler: (ctx, core) => ({ data: publicDoc(svc.create(core, ctx.params.account_id, dataObject(ctx))) }),
    },
    {
      method: 'GET',
      path: one,
      handler: (ctx, core) => {
        const d = svc.get(core, ctx.params.account_id, ctx.params.doc_id);
        return { data: publicDoc(d), extras: { revision: d.rev } };
      },
    },
    ...writeRoutes(one, (ctx, core, mode) => ({
      data: publicDoc(svc.update(core, ctx.params.account_id, ctx.params.doc_id, dataObject(ctx), mode, ifMatchOf(ctx))),
    }), svc.kind.schema),
    {
      method: 'DELETE',
      path: one,
      handler: (ctx, core) => ({
        data: { ...publicDoc(svc.remove(core, ctx.params.account_id, ctx.params.doc_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
      }),
    },
  ];
}

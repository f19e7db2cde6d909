import { writeRoutes, type RouteDef } from '../../http/router.js';
import { dataObject, ifMatchOf } from '../../http/request.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import { documentSummary, kindRows, type DocumentService } from './crud.js';
import { filterDoc, publicDoc, type StoredDoc } from './store.js';

/** The HTTP routes of a plain document kind. */
export function documentRoutes(svc: DocumentService): RouteDef[] {
  const base = `accounts/:account_id/${svc.kind.endpoint}`;
  const one = `${base}/:doc_id`;
  const answer = documentAnswer(svc.kind.schema);
  const readAnswer = svc.kind.readFields ? documentAnswer(svc.kind.schema, svc.kind.readFields) : answer;
  const writeAnswer = svc.kind.leakFields ? documentAnswer(svc.kind.schema, svc.kind.leakFields) : answer;
  /** a create's or change's answer: the document, with what the kind leaks of its private fields */
  const written = (d: StoredDoc) => (svc.kind.leak ? { ...publicDoc(d), ...svc.kind.leak(d) } : publicDoc(d));
  return [
    {
      method: 'GET',
      path: base,
      query: LISTING_QUERY,
      response: listAnswer(svc.kind.schema, svc.kind.summary, svc.kind.rowFields),
      handler: (ctx, core) => {
        const desc = descendingOf(ctx.query);
        return listingReply(ctx.query, (q) => svc.page(core, ctx.params.account_id, q, desc), (d) => documentSummary(svc.kind, d), CREATED_KEY, {
          whole: filterDoc,
          rows: (docs) => kindRows(svc.kind, core, docs),
        });
      },
    },
    {
      method: 'PUT',
      path: base,
      body: svc.kind.schema,
      response: writeAnswer,
      handler: (ctx, core) => ({ data: written(svc.create(core, ctx.params.account_id, dataObject(ctx))) }),
    },
    {
      method: 'GET',
      path: one,
      response: readAnswer,
      handler: (ctx, core) => {
        const d = svc.get(core, ctx.params.account_id, ctx.params.doc_id);
        return { data: svc.kind.readExtra ? { ...publicDoc(d), ...svc.kind.readExtra(core, d) } : publicDoc(d), extras: { revision: d.rev } };
      },
    },
    ...writeRoutes(one, (ctx, core, mode) => ({
      data: written(svc.update(core, ctx.params.account_id, ctx.params.doc_id, dataObject(ctx), mode, ifMatchOf(ctx))),
    }), svc.kind.schema, writeAnswer),
    {
      method: 'DELETE',
      path: one,
      response: deletedAnswer(svc.kind.schema),
      handler: (ctx, core) => ({
        data: { ...publicDoc(svc.remove(core, ctx.params.account_id, ctx.params.doc_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
      }),
    },
  ];
}

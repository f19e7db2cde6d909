import type { RouteDef } from '../../http/router.js';
import { alertSchema } from './schema.js';
import { authOf, dataObject } from '../../http/request.js';
import { CREATED_KEY, listingReply, pagingQuery } from '../../http/paging.js';
import { wholeDoc } from '../../util/doc-filter.js';
import { alertJson, alertsPage, alertSummary, audienceKeys, checkAlertsWrite, createAlert, deleteAlert, getAlert } from './service.js';

const LIST = 'accounts/:account_id/alerts';
const ONE = `${LIST}/:alert_id`;

/** `/v2/accounts/{id}/alerts…`: what Kazoo's web UI shows under its bell. */
export const alertRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: LIST,
    query: pagingQuery(),
    handler: (ctx, core) => {
      const audiences = [...audienceKeys(core, ctx.params.account_id, authOf(ctx))];
      return listingReply(ctx.query, (q) => alertsPage(core, audiences, q), alertSummary, CREATED_KEY, {
        whole: (a) => wholeDoc(alertJson(a), { id: a.id, type: 'alert', created: a.created, modified: a.created }),
      });
    },
  },
  {
    method: 'PUT',
    path: LIST,
    body: alertSchema,
    handler: (ctx, core) => {
      checkAlertsWrite(authOf(ctx));
      return { data: alertJson(createAlert(core, dataObject(ctx))) };
    },
  },
  { method: 'GET', path: ONE, handler: (ctx, core) => ({ data: alertJson(getAlert(core, ctx.params.account_id, authOf(ctx), ctx.params.alert_id)) }) },
  {
    method: 'DELETE',
    path: ONE,
    handler: (ctx, core) => {
      checkAlertsWrite(authOf(ctx));
      const removed = deleteAlert(core, ctx.params.account_id, authOf(ctx), ctx.params.alert_id);
      return { data: { ...alertJson(removed), _read_only: { deleted: true } } };
    },
  },
];

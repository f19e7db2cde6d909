import { boundedWindowOf, BOUNDED_QUERY, CREATED_KEY, listingReply, newestFirst } from '../../http/paging.js';
import { filterDoc } from '../documents/store.js';
import { MAX_RANGE_SECONDS } from '../../util/time.js';
import type { TelModule } from '../types.js';
import { CALL_STAT_COLUMNS, callStatRow, callStatsPage } from './service.js';

/** `GET /v2/accounts/{id}/acdc_call_stats`: what the queue call simulation leaves in ACDC's statistics. */
export const acdcCallStatsModule: TelModule = {
  name: 'acdc_call_stats',
  endpoints: ['acdc_call_stats'],
  routes: [
    {
      method: 'GET',
      path: 'accounts/:account_id/acdc_call_stats',
      query: BOUNDED_QUERY,
      response: {
        type: 'array',
        items: { type: 'object', required: [...CALL_STAT_COLUMNS], properties: Object.fromEntries(CALL_STAT_COLUMNS.map((c) => [c, {}])) },
      },
      handler: (ctx, core) => {
        const window = boundedWindowOf(ctx.query, MAX_RANGE_SECONDS);
        const descending = newestFirst(ctx.query);
        return listingReply(ctx.query, (q) => callStatsPage(core, ctx.params.account_id, { ...q, window, descending }), callStatRow, CREATED_KEY, { timeRange: true, whole: filterDoc });
      },
    },
  ],
};

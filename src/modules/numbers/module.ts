import type { TelModule } from '../types.js';
import { pageExtras, pageQueryOf, pagingQuery } from '../../http/paging.js';
import { listNumbers, numberJson } from './service.js';

/** The account's number inventory: `GET /v2/accounts/{id}/phone_numbers`. */
export const numbersModule: TelModule = {
  name: 'numbers',
  endpoints: ['phone_numbers'],
  accountTables: ['phone_numbers'],
  routes: [
    {
      method: 'GET',
      path: 'accounts/:account_id/phone_numbers',
      query: [
        ...pagingQuery({ type: 'string', description: 'an E.164 number' }),
        { name: 'filter_state', description: 'only numbers in this state', schema: { type: 'string' } },
      ],
      handler: (ctx, core) => {
        const page = listNumbers(core, ctx.params.account_id, {
          // keys are E.164: a leading space is a `+` the client did not URL-encode
          ...pageQueryOf(ctx.query, (q) => q.get('start_key')?.replace(/^ /, '+') || undefined),
          state: ctx.query.get('filter_state') || undefined,
        });
        const numbers: Record<string, Record<string, unknown>> = {};
        for (const r of page.items) numbers[r.number] = numberJson(r);
        return { data: { cascade_quantity: 0, numbers }, extras: pageExtras(page) };
      },
    },
  ],
};

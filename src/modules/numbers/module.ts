import type { TelModule } from '../types.js';
import { listNumbers } from './service.js';

/** The account's number inventory: `GET /v2/accounts/{id}/phone_numbers`. */
export const numbersModule: TelModule = {
  name: 'numbers',
  endpoints: ['phone_numbers'],
  accountTables: ['phone_numbers'],
  routes: [
    {
      method: 'GET',
      path: 'accounts/:account_id/phone_numbers',
      handler: (ctx, core) => {
        const { numbers, extras } = listNumbers(core, ctx.params.account_id, ctx.query);
        return { data: { cascade_quantity: 0, numbers }, extras };
      },
    },
  ],
};

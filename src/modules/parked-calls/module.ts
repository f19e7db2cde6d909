import type { TelModule } from '../types.js';
import { parkedSlots } from './service.js';

/** `GET /v2/accounts/{id}/parked_calls`: the calls the parking simulation left parked, by slot. */
export const parkedCallsModule: TelModule = {
  name: 'parked_calls',
  endpoints: ['parked_calls'],
  accountTables: ['parked_calls'],
  routes: [
    {
      method: 'GET',
      path: 'accounts/:account_id/parked_calls',
      response: {
        type: 'object',
        required: ['slots'],
        properties: { slots: { type: 'object', description: 'the calls parked, by slot number', additionalProperties: { type: 'object' } } },
      },
      handler: (ctx, core) => ({ data: parkedSlots(core, ctx.params.account_id) }),
    },
  ],
};

import { dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import type { JsonSchema } from '../../schema/validate.js';
import { errors } from '../../errors.js';
import type { TelModule } from '../types.js';
import { simulateSubscribe } from '../simulations/subscribe.js';
import { presenceCommand, presenceIdsOf, presenceSearch, PRESENCE_COMMAND, resetPresence } from './service.js';

const SEARCH: JsonSchema = {
  type: 'object',
  required: ['subscriptions'],
  properties: {
    subscriptions: { type: 'object', description: 'by presence id, then event package, then the subscription\'s call id: `{expires, from, notify, stalker, timestamp, version}`' },
    timeout: { type: ['boolean', 'null'] },
  },
};

const MESSAGE: JsonSchema = { type: 'string' };

/** Kazoo's answer to a command: 202 once sent, 200 when there was nothing to send it to. */
const commandReply = (sent: boolean) => (sent ? { status: 202, data: 'command sent' } : { data: 'nothing to send command to' });

const routes: RouteDef[] = [
  { method: 'GET', path: 'accounts/:account_id/presence', response: SEARCH, handler: (ctx, core) => ({ data: presenceSearch(core, ctx.params.account_id) }) },
  {
    method: 'POST',
    path: 'accounts/:account_id/presence',
    body: PRESENCE_COMMAND,
    response: MESSAGE,
    // Kazoo takes commands on a device's or a user's presence only
    handler: () => {
      throw errors.notFoundAs('faulty request');
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/presence/:extension',
    response: SEARCH,
    handler: (ctx, core) => {
      // reports are made by Kazoo's resets for its e-mailed alerts; tel keeps none
      if (ctx.params.extension.startsWith('report-')) throw errors.badIdentifier(ctx.params.extension.slice('report-'.length));
      return { data: presenceSearch(core, ctx.params.account_id, ctx.params.extension) };
    },
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/presence/:extension',
    body: PRESENCE_COMMAND,
    response: MESSAGE,
    errors: [202],
    handler: (ctx, core) => {
      resetPresence(core, ctx.params.account_id, [ctx.params.extension]);
      return { status: 202, data: `reset command sent for extension ${ctx.params.extension}` };
    },
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/devices/:device_id/presence',
    body: PRESENCE_COMMAND,
    response: MESSAGE,
    errors: [202],
    handler: (ctx, core) => commandReply(presenceCommand(core, ctx.params.account_id, presenceIdsOf(core, ctx.params.account_id, { device: ctx.params.device_id }), dataObject(ctx))),
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/users/:user_id/presence',
    body: PRESENCE_COMMAND,
    response: MESSAGE,
    errors: [202],
    handler: (ctx, core) => commandReply(presenceCommand(core, ctx.params.account_id, presenceIdsOf(core, ctx.params.account_id, { user: ctx.params.user_id }), dataObject(ctx))),
  },
];

/** Presence: the subscriptions phones make (simulated) and the states set by hand, as Kazoo's `presence` module serves them. */
export const presenceModule: TelModule = {
  name: 'presence',
  endpoints: ['presence'],
  routes,
  simulations: { subscribe: simulateSubscribe },
  accountTables: ['presence_subscriptions', 'manual_presence'],
};

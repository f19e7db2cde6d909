import { dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import type { JsonSchema } from '../../schema/validate.js';
import { compileValidator } from '../../schema/validate.js';
import { errors } from '../../errors.js';
import type { Core } from '../../core-type.js';
import type { TelModule } from '../types.js';
import { simulateSubscribe } from '../simulations/subscribe.js';
import { presenceIdsOf, presenceSearch, PRESENCE_STATES, resetPresence, setPresence } from './service.js';

const SEARCH: JsonSchema = {
  type: 'object',
  required: ['subscriptions'],
  properties: {
    subscriptions: { type: 'object', description: 'by presence id, then event package, then the subscription\'s call id: `{expires, from, notify, stalker, timestamp, version}`' },
    timeout: { type: ['boolean', 'null'] },
  },
};

/** What a command on a device's or a user's presence takes. */
const COMMAND: JsonSchema = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['reset', 'set'] },
    state: { type: 'string', enum: PRESENCE_STATES, description: 'the state `set` gives' },
    reset: { type: 'boolean', description: 'deprecated: `true` means `action: reset`' },
  },
};
const validateCommand = compileValidator(COMMAND);

/** Runs a command on the presence ids of a device or a user, answered as Kazoo answers it. */
function command(core: Core, accountId: string, ids: string[], input: Record<string, unknown>) {
  const data = validateCommand(input);
  const action = data.action ?? (data.reset === true ? 'reset' : undefined);
  if (action === undefined) throw errors.invalidField('action', 'invalid', 'Field must be set to a valid action', { target: 'invalid' });
  if (ids.length === 0) return { data: 'nothing to send command to' };
  if (action === 'set') setPresence(core, accountId, ids, String(data.state));
  else resetPresence(core, accountId, ids);
  return { status: 202, data: 'command sent' };
}

const MESSAGE: JsonSchema = { type: 'string' };

const routes: RouteDef[] = [
  { method: 'GET', path: 'accounts/:account_id/presence', response: SEARCH, handler: (ctx, core) => ({ data: presenceSearch(core, ctx.params.account_id) }) },
  {
    method: 'POST',
    path: 'accounts/:account_id/presence',
    body: COMMAND,
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
    body: COMMAND,
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
    body: COMMAND,
    response: MESSAGE,
    errors: [202],
    handler: (ctx, core) => command(core, ctx.params.account_id, presenceIdsOf(core, ctx.params.account_id, { device: ctx.params.device_id }), dataObject(ctx)),
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/users/:user_id/presence',
    body: COMMAND,
    response: MESSAGE,
    errors: [202],
    handler: (ctx, core) => command(core, ctx.params.account_id, presenceIdsOf(core, ctx.params.account_id, { user: ctx.params.user_id }), dataObject(ctx)),
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

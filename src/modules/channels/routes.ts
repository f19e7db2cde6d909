import type { RequestContext } from '../../http/context.js';
import { dataObject } from '../../http/request.js';
import { CREATED_KEY, LISTING_QUERY, descendingOf, listingReply } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import type { JsonSchema } from '../../schema/validate.js';
import { compileValidator } from '../../schema/validate.js';
import { ref } from '../../schema/registry.js';
import { metaflow } from '../../schema/metaflows.js';
import { errors } from '../../errors.js';
import { channelAction, channelDetail, channelSummary, runMetaflow } from './service.js';
import { channelsPage, getChannel } from './store.js';
import { cdrScope } from '../cdrs/service.js';

const CHANNEL: JsonSchema = {
  type: 'object',
  required: ['uuid', 'answered', 'direction', 'destination', 'timestamp'],
  properties: {
    uuid: { type: 'string', description: "the leg's call id" },
    answered: { type: 'boolean' },
    direction: { type: 'string', enum: ['inbound', 'outbound'] },
    destination: { type: 'string' },
    elapsed_s: { type: 'integer' },
    other_leg: { type: 'string' },
    timestamp: { type: 'integer', description: 'when the leg started (Gregorian seconds)' },
    owner_id: { type: 'string' },
    authorizing_id: { type: 'string' },
    interaction_id: { type: 'string' },
  },
};

const CHANNEL_DETAIL: JsonSchema = {
  type: 'object',
  required: ['call_id', 'answered', 'call_direction', 'destination', 'timestamp'],
  properties: {
    call_id: { type: 'string' },
    answered: { type: 'boolean' },
    call_direction: { type: 'string', enum: ['inbound', 'outbound'] },
    destination: { type: 'string' },
    elapsed_seconds: { type: 'integer' },
    other_leg_call_id: { type: 'string' },
    timestamp: { type: 'integer' },
  },
};

/** What a channel's action takes: the actions a simulated switch can carry out. */
const ACTION: JsonSchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', enum: ['hangup', 'transfer'], description: 'hangup: the call ends; transfer: the leg\'s peer is connected to `target` and the leg hangs up' },
    target: { type: 'string', minLength: 1, description: 'where a transfer sends the peer (a number)' },
    'transfer-type': { type: 'string', enum: ['blind', 'attended'], default: 'blind' },
    moh: { type: 'string' },
  },
};
const validateAction = compileValidator(ACTION);
const validateMetaflow = compileValidator(metaflow);

/** The message Kazoo answers an action with, once it is sent on its way (202). */
const INITIATED: JsonSchema = { type: 'string', description: 'what was done: `hangup initiated`, `transfer initiated`, `metaflow sent`' };

/** A listing of channels: the account's, a user's or a device's (either must exist: 404). */
function channelListing(path: string, of: (ctx: RequestContext) => { user?: string; device?: string }): RouteDef {
  return {
    method: 'GET',
    path,
    query: LISTING_QUERY,
    response: { type: 'array', items: CHANNEL },
    handler: (ctx, core) => {
      const scope = cdrScope(core, ctx.params.account_id, of(ctx));
      const desc = descendingOf(ctx.query);
      const now = Date.now();
      return listingReply(ctx.query, (q) => channelsPage(core, ctx.params.account_id, scope, q, desc), (l) => channelSummary(l, now), CREATED_KEY);
    },
  };
}

const ONE = 'accounts/:account_id/channels/:uuid';

export const channelRoutes: RouteDef[] = [
  channelListing('accounts/:account_id/channels', () => ({})),
  channelListing('accounts/:account_id/users/:user_id/channels', (ctx) => ({ user: ctx.params.user_id })),
  channelListing('accounts/:account_id/devices/:device_id/channels', (ctx) => ({ device: ctx.params.device_id })),
  {
    method: 'GET',
    path: ONE,
    response: CHANNEL_DETAIL,
    handler: (ctx, core) => ({ data: channelDetail(getChannel(core, ctx.params.account_id, ctx.params.uuid)) }),
  },
  {
    method: 'POST',
    path: ONE,
    body: ACTION,
    response: INITIATED,
    errors: [202],
    handler: (ctx, core) => {
      getChannel(core, ctx.params.account_id, ctx.params.uuid);
      const input = validateAction(dataObject(ctx));
      return { status: 202, data: channelAction(core, ctx.params.account_id, ctx.params.uuid, String(input.action), input.target) };
    },
  },
  {
    method: 'PUT',
    path: ONE,
    body: ref(metaflow),
    response: INITIATED,
    errors: [202],
    handler: (ctx, core) => {
      getChannel(core, ctx.params.account_id, ctx.params.uuid);
      if ((ctx.envelope.action ?? ctx.query.get('action')) !== 'metaflow') {
        throw errors.invalidField('action', 'enum', 'Value not found in enumerated list of values', { target: ['metaflow'] });
      }
      const flow = validateMetaflow(dataObject(ctx));
      return { status: 202, data: runMetaflow(core, ctx.params.account_id, ctx.params.uuid, flow) };
    },
  },
];

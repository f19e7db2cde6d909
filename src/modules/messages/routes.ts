import { authOf, dataObject } from '../../http/request.js';
import { boundedWindowOf, BOUNDED_QUERY, CREATED_KEY, listingReply, newestFirst } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import type { JsonSchema } from '../../schema/validate.js';
import { MAX_RANGE_SECONDS, rfc1036, unixMsToGregorian } from '../../util/time.js';
import { publicDoc, type StoredDoc } from '../documents/store.js';
import { deleteMessage, getMessage, messagesPage, sendMessage, smsSchema, type MessageType } from './service.js';

const MESSAGE: JsonSchema = {
  type: 'object',
  required: ['id', 'from', 'to', 'body'],
  properties: {
    id: { type: 'string' },
    message_id: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    body: { type: 'string' },
    route_type: { type: 'string', enum: ['offnet', 'onnet'] },
    direction: { type: 'string', enum: ['inbound', 'outbound'] },
  },
};

/** A listing row as Kazoo's IM listings answer it: the view's row itself (`id`, `key`, `value`) with its `date`. */
const ROW: JsonSchema = {
  type: 'object',
  required: ['id', 'key', 'value', 'date'],
  properties: {
    id: { type: 'string' },
    key: { type: 'array', description: '`[created (Gregorian seconds), id]`' },
    value: {
      type: 'object',
      required: ['id', 'from', 'to', 'created', 'direction', 'status', 'body'],
      properties: {
        id: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        created: { type: 'integer' },
        direction: { type: 'string', enum: ['inbound', 'outbound'] },
        status: { type: 'string' },
        body: { type: 'string' },
      },
    },
    date: { type: 'string', description: 'when it was created (RFC 1036)' },
  },
};

function row(d: StoredDoc): Record<string, unknown> {
  const created = unixMsToGregorian(d.created);
  return {
    id: d.id,
    key: [created, d.id],
    value: {
      id: d.id,
      from: d.doc.from_user,
      to: d.doc.to_user,
      created,
      direction: d.pvt.authorization_type === 'resource' ? 'inbound' : 'outbound',
      status: d.pvt.status,
      body: d.doc.body,
    },
    date: rfc1036(created),
  };
}

/** The routes of one message type: `sms` or `mms`. */
function messageRoutes(type: MessageType): RouteDef[] {
  const base = `accounts/:account_id/${type}`;
  const one = `${base}/:message_id`;
  return [
    {
      method: 'GET',
      path: base,
      query: BOUNDED_QUERY,
      response: { type: 'array', items: ROW },
      handler: (ctx, core) => {
        const window = boundedWindowOf(ctx.query, MAX_RANGE_SECONDS);
        const descending = newestFirst(ctx.query);
        return listingReply(ctx.query, (q) => messagesPage(core, type, ctx.params.account_id, { ...q, window, descending }), row, CREATED_KEY);
      },
    },
    {
      method: 'PUT',
      path: base,
      body: smsSchema,
      response: { type: 'object', required: ['message_id', 'from', 'to', 'route_type'], properties: { message_id: { type: 'string' }, route_type: { type: 'string' } } },
      handler: (ctx, core) => {
        const auth = authOf(ctx);
        // the caller's user sends it when it is a user of this account (Kazoo's authorizing user)
        const user = auth.accountId === ctx.params.account_id ? auth.ownerId : undefined;
        return { data: sendMessage(core, type, ctx.params.account_id, user, dataObject(ctx)) };
      },
    },
    {
      method: 'GET',
      path: one,
      response: MESSAGE,
      handler: (ctx, core) => {
        const d = getMessage(core, type, ctx.params.account_id, ctx.params.message_id);
        return { data: publicDoc(d), extras: { revision: d.rev } };
      },
    },
    {
      method: 'DELETE',
      path: one,
      response: MESSAGE,
      handler: (ctx, core) => ({ data: { ...publicDoc(deleteMessage(core, type, ctx.params.account_id, ctx.params.message_id)), _read_only: { deleted: true } } }),
    },
  ];
}

export const messageRoutesOf = { sms: messageRoutes('sms'), mms: messageRoutes('mms') };

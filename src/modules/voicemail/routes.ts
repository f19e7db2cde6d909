import type { RouteDef } from '../../http/router.js';
import { dataObject } from '../../http/request.js';
import { listingReply, NEWEST_FIRST_QUERY, newestFirst, opaqueKey } from '../../http/paging.js';
import type { JsonSchema } from '../../schema/validate.js';
import {
  accountMessagesPage,
  boxMessagesPage,
  changeMessage,
  changeMessages,
  changeOf,
  createMessage,
  deleteMessage,
  deleteMessages,
  getMessage,
  messageRow,
  vmMessageMetadataSchema,
} from './service.js';

/** Messages are listed by when they were left, keyed by `[timestamp, id]`. */
const BY_TIMESTAMP = opaqueKey('number', 'string');

const BOX = 'accounts/:account_id/vmboxes/:vmbox_id';
const ONE = `${BOX}/messages/:message_id`;

const FOLDER = { type: 'string', enum: ['new', 'saved', 'deleted'] };

/** A message's metadata, as Kazoo answers it. */
const METADATA: JsonSchema = {
  type: 'object',
  required: ['media_id', 'folder', 'timestamp'],
  properties: {
    media_id: { type: 'string', description: "the message's id (`YYYYMM-` and 32 hex digits)" },
    call_id: { type: 'string' },
    caller_id_name: { type: 'string' },
    caller_id_number: { type: 'string' },
    from: { type: 'string', description: 'SIP user@realm' },
    from_user: { type: 'string' },
    from_realm: { type: 'string' },
    to: { type: 'string', description: "the box's mailbox@realm" },
    to_user: { type: 'string' },
    to_realm: { type: 'string' },
    length: { type: 'integer', description: 'milliseconds' },
    timestamp: { type: 'integer', description: 'when it was left, Gregorian seconds' },
    folder: FOLDER,
  },
};

/** A listing row of a message (Kazoo's `mailbox_messages/listing_by_mailbox`). */
const ROW: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(['timestamp', 'from', 'to', 'caller_id_number', 'caller_id_name', 'call_id', 'folder', 'length', 'media_id'].map((k) => [k, (METADATA.properties as Record<string, JsonSchema>)[k]])),
};

/** What a bulk change answers: the ids changed, and those that failed with why. */
const BULK: JsonSchema = {
  type: 'object',
  properties: {
    succeeded: { type: 'array', items: { type: 'string' } },
    failed: { type: 'object', additionalProperties: { type: 'string' }, description: 'by message id: why (`not_found`)' },
  },
};

/** A change of messages: their folder, or other boxes (a string moves them, a list copies them). */
const CHANGE = {
  type: 'object',
  properties: {
    folder: FOLDER,
    source_id: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'a box to move them to, or boxes to copy them to' },
    messages: { type: 'array', items: { type: 'string' }, description: 'the ids of the messages (bulk)' },
  },
};

const FOLDER_QUERY = [{ name: 'folder', description: 'the folder to move messages to, or to delete (`new`, `saved`, `deleted`)', schema: FOLDER }];

/** `…/vmboxes/messages` and `…/vmboxes/{id}/messages[/{message_id}]`: the messages simulated voicemail and clients leave, as Kazoo's `cb_vmboxes` serves them. */
export const voicemailRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/vmboxes/messages',
    query: NEWEST_FIRST_QUERY,
    response: { type: 'array', items: { type: 'object', additionalProperties: ROW, description: "a message keyed by its box's id" } },
    handler: (ctx, core) =>
      listingReply(ctx.query, (q) => accountMessagesPage(core, ctx.params.account_id, q, !newestFirst(ctx.query)), (m) => ({ [m.boxId]: messageRow(m) }), BY_TIMESTAMP),
  },
  {
    method: 'GET',
    path: `${BOX}/messages`,
    query: NEWEST_FIRST_QUERY,
    response: { type: 'array', items: ROW },
    handler: (ctx, core) =>
      listingReply(ctx.query, (q) => boxMessagesPage(core, ctx.params.account_id, ctx.params.vmbox_id, q, !newestFirst(ctx.query)), messageRow, BY_TIMESTAMP),
  },
  {
    method: 'PUT',
    path: `${BOX}/messages`,
    body: vmMessageMetadataSchema,
    response: METADATA,
    handler: (ctx, core) => ({ data: createMessage(core, ctx.params.account_id, ctx.params.vmbox_id, dataObject(ctx)).metadata }),
  },
  {
    method: 'POST',
    path: `${BOX}/messages`,
    body: CHANGE,
    query: FOLDER_QUERY,
    response: BULK,
    handler: (ctx, core) => {
      const data = dataObject(ctx);
      return { data: changeMessages(core, ctx.params.account_id, ctx.params.vmbox_id, data.messages, changeOf(data, ctx.query)) };
    },
  },
  {
    method: 'DELETE',
    path: `${BOX}/messages`,
    query: FOLDER_QUERY,
    response: BULK,
    handler: (ctx, core) => ({ data: deleteMessages(core, ctx.params.account_id, ctx.params.vmbox_id, dataObject(ctx), ctx.query) }),
  },
  {
    method: 'GET',
    path: ONE,
    response: METADATA,
    handler: (ctx, core) => ({ data: getMessage(core, ctx.params.account_id, ctx.params.vmbox_id, ctx.params.message_id).metadata }),
  },
  {
    method: 'POST',
    path: ONE,
    body: CHANGE,
    query: FOLDER_QUERY,
    response: { anyOf: [METADATA, BULK] },
    handler: (ctx, core) => ({
      data: changeMessage(core, ctx.params.account_id, ctx.params.vmbox_id, ctx.params.message_id, changeOf(dataObject(ctx), ctx.query)),
    }),
  },
  {
    method: 'DELETE',
    path: ONE,
    response: METADATA,
    handler: (ctx, core) => ({ data: deleteMessage(core, ctx.params.account_id, ctx.params.vmbox_id, ctx.params.message_id) }),
  },
];

import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import type { CompoundKey, Page } from '../../store/pages.js';
import { compileValidator } from '../../schema/validate.js';
import { getAccount, resellerIdOf } from '../accounts/service.js';
import { deleteDoc, getDoc, insertDoc, type StoredDoc } from '../documents/store.js';
import { modbId, modbPage, type ModbQuery } from '../documents/modb.js';
import { normalizeNumber } from '../numbers/converters.js';
import { findUser } from '../users/service.js';
import { newId } from '../../util/ids.js';

// Text and multimedia messages (Kazoo's sms and mms modules): each message sent through the API
// or simulated as arriving is stored as Kazoo's IM applications store it (a document of the
// account's month, its status private), is delivered at once by the simulated carrier or switch,
// and fires the `sms`/`mms` hook event.

export type MessageType = 'sms' | 'mms';

/** What a message is: who sent it where, which way, and how it was authorized. */
export interface Message {
  from: string;
  to: string;
  body: string;
  /** offnet: through a carrier; onnet: between the platform's own endpoints */
  routeType: 'offnet' | 'onnet';
  direction: 'inbound' | 'outbound';
  /** Kazoo's pvt_authorization_type: `resource` for one arriving from a carrier, else `user` or `account` */
  authorizationType: 'resource' | 'user' | 'account';
  authorizationId?: string;
  ownerId?: string;
  messageId?: string;
}

/** Kazoo's `sms` schema: what a message sent through the API takes. */
export const smsSchema = {
  type: 'object',
  required: ['body', 'to'],
  properties: {
    body: { type: 'string', minLength: 1, maxLength: 700, description: 'the text' },
    from: { type: 'string', description: "the sender's number; the user's (or account's) caller id when absent" },
    to: { type: 'string', description: 'the number it goes to: a number of the outside world (offnet), or an extension (onnet)' },
  },
};
const validateSms = compileValidator(smsSchema);

/** An mms body: MIME, a part with its headers (a `Content-Type`) before a blank line. */
const MIME_BODY = /^(?:[!-9;-~]+:[^\r\n]*\r?\n)*content-type:[^\r\n]*\r?\n(?:[!-9;-~]+:[^\r\n]*\r?\n)*\r?\n/i;

/**
 * Stores a message (delivered: the simulation's carrier and switch take it at once) and fires its
 * hook event with the fields of Kazoo's webhooks app. Answers the stored message and the event.
 */
export function storeMessage(core: Core, type: MessageType, accountId: string, m: Message, charges?: number): { stored: StoredDoc; event: Record<string, unknown> } {
  const realm = getAccount(core, accountId).realm;
  const [fromUser, fromRealm = realm] = m.from.split('@');
  const [toUser, toRealm = realm] = m.to.split('@');
  const messageId = m.messageId ?? newId();
  const doc: Record<string, unknown> = {
    message_id: messageId,
    from: m.from,
    to: m.to,
    body: m.body,
    from_user: fromUser,
    from_realm: fromRealm,
    to_user: toUser,
    to_realm: toRealm,
    route_type: m.routeType,
    direction: m.direction,
  };
  const pvt: Record<string, unknown> = { status: 'delivered', authorization_type: m.authorizationType };
  if (m.authorizationId) pvt.authorization_id = m.authorizationId;
  if (m.ownerId) pvt.owner_id = m.ownerId;
  const stored = insertDoc(core, type, accountId, doc, pvt, modbId());
  const event: Record<string, unknown> = { id: messageId, account_id: accountId, type, from: m.from, to: m.to, body: m.body, origin: m.routeType };
  if (charges !== undefined) event.charges = charges;
  core.bus.publish({ type, accountId, payload: event });
  return { stored, event };
}

/** The number a user (else the account) sends from: its caller id, external through a carrier, internal on the platform. */
function defaultCallerId(core: Core, accountId: string, ownerId: string | undefined, routeType: string): string | undefined {
  const doc = (ownerId ? findUser(core, accountId, ownerId)?.doc : undefined) ?? getAccount(core, accountId).doc;
  const callerId = (doc.caller_id ?? {}) as Record<string, { number?: unknown }>;
  const n = callerId[routeType === 'offnet' ? 'external' : 'internal']?.number;
  return typeof n === 'string' && n !== '' ? n : undefined;
}

/** Refuses a sender's number the account does not hold (a number of another account, or none's, alike). */
function checkFrom(core: Core, accountId: string, from: string): void {
  const held = stmt(core.db, 'SELECT account_id FROM phone_numbers WHERE number = ?').get(normalizeNumber(core, accountId, from)) as { account_id: string } | undefined;
  if (held?.account_id !== accountId) throw errors.invalidField('from', 'invalid', 'number is invalid', { value: from });
}

/**
 * A message sent through the API (`PUT sms` / `PUT mms`), as Kazoo's module takes it: to a
 * number of the outside world it goes offnet, from a number the account holds; to anything else
 * (an extension) it stays on the platform. Sent by the caller's user when the caller is a user of
 * the account, else by the account. Answers what Kazoo answers (the request it sent on its way)
 * and the stored message.
 */
export function sendMessage(core: Core, type: MessageType, accountId: string, callerUser: string | undefined, input: Record<string, unknown>): Record<string, unknown> {
  const data = validateSms(input);
  if (type === 'mms' && !MIME_BODY.test(String(data.body))) {
    throw errors.invalidField('body', 'required', 'add mime encoded body or upload one or more files');
  }
  const to = String(data.to);
  const normalized = normalizeNumber(core, accountId, to);
  const routeType = /^\+\d{7,}$/.test(normalized) ? 'offnet' : 'onnet';
  const from = (data.from as string | undefined) ?? defaultCallerId(core, accountId, callerUser, routeType);
  if (from === undefined) throw errors.invalidField('from', 'required', 'Field is required but missing: the sender has no caller id');
  return transaction(core.db, () => {
    if (routeType === 'offnet') checkFrom(core, accountId, from);
    const m: Message = {
      from,
      to: routeType === 'offnet' ? normalized : to,
      body: String(data.body),
      routeType,
      direction: 'outbound',
      authorizationType: callerUser ? 'user' : 'account',
      authorizationId: callerUser ?? accountId,
      ownerId: callerUser,
    };
    const { stored } = storeMessage(core, type, accountId, m);
    const customVars: Record<string, unknown> = {
      account_id: accountId,
      reseller_id: resellerIdOf(core, getAccount(core, accountId)),
      authorizing_type: m.authorizationType,
      authorizing_id: m.authorizationId,
    };
    if (callerUser) customVars.owner_id = callerUser;
    return { message_id: stored.doc.message_id, from, to: m.to, body: m.body, account_id: accountId, custom_vars: customVars, route_type: routeType, id: stored.id };
  });
}

/** One page of an account's messages of a type stored in the window. */
export function messagesPage(core: Core, type: MessageType, accountId: string, q: ModbQuery): Page<StoredDoc, CompoundKey> {
  return modbPage(core, type, accountId, q, true);
}

/** A message of the account, or the 404. */
export function getMessage(core: Core, type: MessageType, accountId: string, id: string): StoredDoc {
  return getDoc(core, type, accountId, id);
}

/** Deletes a message; answers it. */
export function deleteMessage(core: Core, type: MessageType, accountId: string, id: string): StoredDoc {
  return transaction(core.db, () => {
    const d = getDoc(core, type, accountId, id);
    deleteDoc(core, d);
    return d;
  });
}

import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { compileValidator, type JsonSchema } from '../../schema/validate.js';
import { defineSchema } from '../../schema/registry.js';
import { newId } from '../../util/ids.js';
import { nowGregorian } from '../../util/time.js';
import { getAccount } from '../accounts/service.js';
import { findDoc, getDoc, type StoredDoc } from '../documents/store.js';
import { findMessage, insertMessage, messagesPage, removeMessage, updateFolder, type Folder, type VmMessage } from './store.js';

/** Kazoo's schema of a message's metadata, as `PUT …/vmboxes/{id}/messages` takes it. */
export const vmMessageMetadataSchema: JsonSchema = defineSchema('vm_message_metadata', {
  type: 'object',
  description: "A voicemail message's metadata",
  properties: {
    call_id: { type: 'string', description: 'The SIP call-id' },
    caller_id_name: { type: 'string', maxLength: 35, description: 'The caller id name' },
    caller_id_number: { type: 'string', maxLength: 35, description: 'The caller id number' },
    folder: { type: 'string', enum: ['deleted', 'saved', 'new'], description: 'The folder the message belongs to' },
    from: { type: 'string', description: 'The SIP from header' },
    length: { type: 'integer' },
    timestamp: { type: 'integer', description: 'The UTC timestamp, in Gregorian seconds, that the voicemail was left on' },
    to: { type: 'string', description: 'The SIP to header' },
  },
});

const validateMetadata = compileValidator(vmMessageMetadataSchema);

/** A message's id as Kazoo makes it (`kazoo_modb_util:modb_id/3`): the month it is stored in, then 32 hex digits. */
function messageId(nowMs = Date.now()): string {
  const d = new Date(nowMs);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}-${newId()}`;
}

/** What a new message says of itself: who left it, how long it is, when, its call. */
export interface NewMessage {
  callerIdNumber: string;
  callerIdName: string;
  /** the SIP user it came from (default: the caller id number) */
  from?: string;
  /** milliseconds */
  lengthMs: number;
  callId: string;
  folder?: Folder;
  /** Gregorian seconds (default: now) */
  timestamp?: number;
}

/**
 * Stores a message left in a box, with the metadata Kazoo's voicemail module writes
 * (`kzd_box_message:build_metadata_object/7`): the SIP from and to, in the account's realm, split
 * into user and realm too.
 */
export function leaveMessage(core: Core, box: StoredDoc, m: NewMessage): VmMessage {
  const realm = getAccount(core, box.accountId).realm;
  const id = messageId();
  const fromUser = m.from ?? m.callerIdNumber;
  const toUser = String(box.doc.mailbox ?? '');
  const timestamp = m.timestamp ?? nowGregorian();
  const folder = m.folder ?? 'new';
  const metadata = {
    media_id: id,
    call_id: m.callId,
    caller_id_name: m.callerIdName,
    caller_id_number: m.callerIdNumber,
    from: `${fromUser}@${realm}`,
    from_user: fromUser,
    from_realm: realm,
    length: m.lengthMs,
    timestamp,
    to: `${toUser}@${realm}`,
    to_user: toUser,
    to_realm: realm,
    folder,
  };
  const message: VmMessage = { id, accountId: box.accountId, boxId: box.id, folder, timestamp, metadata };
  insertMessage(core, message);
  return message;
}

/**
 * `PUT …/vmboxes/{id}/messages`: a message's metadata without its audio, as Kazoo's
 * `create_new_message_document/2` fills it: the caller's number (the account's anonymous one,
 * `0000000000`, when none), from and to users, a length of 1 ms, folder `new`.
 */
export function createMessage(core: Core, accountId: string, boxId: string, input: Record<string, unknown>): VmMessage {
  const box = getDoc(core, 'vmbox', accountId, boxId);
  const doc = validateMetadata(input);
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const number = text(doc.caller_id_number) ?? ANONYMOUS_NUMBER;
  return transaction(core.db, () =>
    leaveMessage(core, box, {
      callerIdNumber: number,
      callerIdName: text(doc.caller_id_name) ?? ANONYMOUS_NUMBER,
      from: text(doc.from) ?? number,
      lengthMs: typeof doc.length === 'number' ? doc.length : 1,
      callId: text(doc.call_id) ?? newId().slice(0, 24),
      folder: (text(doc.folder) as Folder | undefined) ?? 'new',
      timestamp: typeof doc.timestamp === 'number' ? doc.timestamp : undefined,
    }),
  );
}

/** Kazoo's anonymous caller id number (`kz_privacy:anonymous_caller_id_number/1`'s default). */
const ANONYMOUS_NUMBER = '0000000000';

/** A listing row of a message, as Kazoo's `mailbox_messages/listing_by_mailbox` view emits it. */
export function messageRow(m: VmMessage): Record<string, unknown> {
  const md = m.metadata;
  return {
    timestamp: md.timestamp,
    from: md.from,
    to: md.to,
    caller_id_number: md.caller_id_number,
    caller_id_name: md.caller_id_name,
    call_id: md.call_id,
    folder: m.folder,
    length: md.length,
    media_id: md.media_id,
  };
}

/** A box's messages (the box must exist), newest first unless `oldestFirst`. */
export function boxMessagesPage(core: Core, accountId: string, boxId: string, q: PageQuery<CompoundKey>, oldestFirst = false): Page<VmMessage, CompoundKey> {
  getDoc(core, 'vmbox', accountId, boxId);
  return messagesPage(core, accountId, boxId, q, oldestFirst);
}

/** Every box's messages of an account, newest first unless `oldestFirst`. */
export function accountMessagesPage(core: Core, accountId: string, q: PageQuery<CompoundKey>, oldestFirst = false): Page<VmMessage, CompoundKey> {
  return messagesPage(core, accountId, undefined, q, oldestFirst);
}

/** A message of a box, or the 404 Kazoo answers (`bad_identifier`) for one not in it. */
export function getMessage(core: Core, accountId: string, boxId: string, id: string): VmMessage {
  getDoc(core, 'vmbox', accountId, boxId);
  const m = findMessage(core, accountId, id);
  if (!m || m.boxId !== boxId) throw errors.badIdentifier(id);
  return m;
}

/** Where a change sends messages: to a folder of their box, or to other boxes (`source_id`). */
export type MessageChange = { folder: Folder } | { moveTo: string } | { copyTo: string[] };

/**
 * What a request's `source_id` and `folder` ask of messages, as Kazoo's `cb_vmboxes` reads them:
 * a string `source_id` moves them, a list copies them, none changes their folder (`saved` when no
 * folder is named, `folder` read from `data` or the query string).
 */
export function changeOf(data: Record<string, unknown>, query: URLSearchParams): MessageChange {
  const source = data.source_id;
  if (typeof source === 'string' && source !== '') return { moveTo: source };
  if (Array.isArray(source)) {
    const ids = source.filter((s): s is string => typeof s === 'string' && s !== '');
    if (ids.length === 0 || ids.length !== source.length) throw emptySource();
    return { copyTo: ids };
  }
  if (source !== undefined) throw emptySource();
  return { folder: folderOf(data, query) ?? 'saved' };
}

function emptySource() {
  return errors.invalidField('source_id', 'required', 'empty source_id is specified. please set a single or a list of source_ids.');
}

/** The folder a request names (`data.folder`, else `?folder=`), if it is one of Kazoo's. */
function folderOf(data: Record<string, unknown>, query: URLSearchParams): Folder | undefined {
  const f = data.folder ?? query.get('folder');
  return f === 'new' || f === 'saved' || f === 'deleted' ? f : undefined;
}

/** The outcome of a bulk change, as Kazoo's `kvm_messages` answers it: empty parts left out. */
export interface BulkResult {
  succeeded?: string[];
  failed?: Record<string, string>;
}

function bulk(succeeded: string[], failed: Record<string, string>): BulkResult {
  const out: BulkResult = {};
  if (succeeded.length > 0) out.succeeded = succeeded;
  if (Object.keys(failed).length > 0) out.failed = failed;
  return out;
}

/** A copy of a message in another box: a new id, folder `new`, stamped now, sent to that box's mailbox (`kvm_util:get_change_vmbox_funs/5`). */
function messageIn(core: Core, m: VmMessage, box: StoredDoc): VmMessage {
  const realm = getAccount(core, box.accountId).realm;
  const id = messageId();
  const toUser = String(box.doc.mailbox ?? '');
  const timestamp = nowGregorian();
  const metadata = { ...m.metadata, media_id: id, timestamp, to: `${toUser}@${realm}`, to_user: toUser, to_realm: realm, folder: 'new' };
  const copy: VmMessage = { id, accountId: m.accountId, boxId: box.id, folder: 'new', timestamp, metadata };
  insertMessage(core, copy);
  return copy;
}

/** Moves one message of a box to a folder or to another box; answers what it became (a move: the new message). */
function applyChange(core: Core, m: VmMessage, change: Exclude<MessageChange, { copyTo: string[] }>): VmMessage {
  if ('folder' in change) return updateFolder(core, m, change.folder);
  const moved = messageIn(core, m, getDoc(core, 'vmbox', m.accountId, change.moveTo));
  removeMessage(core, m.id);
  return moved;
}

/**
 * `POST …/messages/{id}`: moves a message to a folder or another box, or copies it to others;
 * answers its metadata (a copy to several boxes: `{succeeded, failed}` as Kazoo answers it).
 */
export function changeMessage(core: Core, accountId: string, boxId: string, id: string, change: MessageChange): Record<string, unknown> | BulkResult {
  return transaction(core.db, () => {
    const m = getMessage(core, accountId, boxId, id);
    if ('copyTo' in change) return copyAll(core, accountId, [m], change.copyTo);
    return applyChange(core, m, change).metadata;
  });
}

/** Copies messages to each box named (a box that does not exist fails each message with `not_found`, as Kazoo's copy does). */
function copyAll(core: Core, accountId: string, messages: VmMessage[], boxIds: string[]): BulkResult {
  const succeeded: string[] = [];
  const failed: Record<string, string> = {};
  for (const boxId of boxIds) {
    const box = findDoc(core, 'vmbox', accountId, boxId);
    for (const m of messages) {
      if (box) succeeded.push(messageIn(core, m, box).id);
      else failed[m.id] = 'not_found';
    }
  }
  return bulk(succeeded, failed);
}

/**
 * `POST …/vmboxes/{id}/messages`: the same change for each message named in `data.messages`;
 * those not in the box fail with `not_found`.
 */
export function changeMessages(core: Core, accountId: string, boxId: string, ids: unknown, change: MessageChange): BulkResult {
  const list = messageIds(ids);
  return transaction(core.db, () => {
    getDoc(core, 'vmbox', accountId, boxId);
    if ('moveTo' in change) getDoc(core, 'vmbox', accountId, change.moveTo);
    const found: VmMessage[] = [];
    const failed: Record<string, string> = {};
    for (const id of list) {
      const m = findMessage(core, accountId, id);
      if (m && m.boxId === boxId) found.push(m);
      else failed[id] = 'not_found';
    }
    if ('copyTo' in change) {
      const r = copyAll(core, accountId, found, change.copyTo);
      return bulk(r.succeeded ?? [], { ...failed, ...r.failed });
    }
    const succeeded = found.map((m) => applyChange(core, m, change).id);
    return bulk(succeeded, failed);
  });
}

/** `data.messages`: a non-empty list of message ids, else Kazoo's 400. */
function messageIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.length === 0) {
    throw errors.invalidField('messages', 'required', 'No array of message ids are specified');
  }
  return ids.filter((i): i is string => typeof i === 'string');
}

/** `DELETE …/messages/{id}`: the message goes for good; answers its metadata, in folder `deleted`. */
export function deleteMessage(core: Core, accountId: string, boxId: string, id: string): Record<string, unknown> {
  return transaction(core.db, () => {
    const m = getMessage(core, accountId, boxId, id);
    removeMessage(core, m.id);
    return { ...m.metadata, folder: 'deleted' };
  });
}

/**
 * `DELETE …/vmboxes/{id}/messages`: the messages named in `data.messages`, else those of the
 * folder named (`data.folder` or `?folder=`), else all of them, go for good (one statement).
 */
export function deleteMessages(core: Core, accountId: string, boxId: string, data: Record<string, unknown>, query: URLSearchParams): BulkResult {
  return transaction(core.db, () => {
    getDoc(core, 'vmbox', accountId, boxId);
    if (data.messages !== undefined) {
      const list = messageIds(data.messages);
      const del = stmt(core.db, 'DELETE FROM vm_messages WHERE id = ? AND account_id = ? AND box_id = ?');
      const succeeded: string[] = [];
      const failed: Record<string, string> = {};
      for (const id of list) {
        if (del.run(id, accountId, boxId).changes > 0) succeeded.push(id);
        else failed[id] = 'not_found';
      }
      return bulk(succeeded, failed);
    }
    const folder = folderOf(data, query);
    const rows = (
      folder
        ? stmt(core.db, 'DELETE FROM vm_messages WHERE account_id = ? AND box_id = ? AND folder = ? RETURNING id').all(accountId, boxId, folder)
        : stmt(core.db, 'DELETE FROM vm_messages WHERE account_id = ? AND box_id = ? RETURNING id').all(accountId, boxId)
    ) as { id: string }[];
    return bulk(
      rows.map((r) => r.id),
      {},
    );
  });
}

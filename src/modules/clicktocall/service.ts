import { randomBytes } from 'node:crypto';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { isObject } from '../../util/json.js';
import { linearExec } from '../../util/linear-regex.js';
import { newId } from '../../util/ids.js';
import { nowGregorian, type TimeWindow } from '../../util/time.js';
import { getAccount } from '../accounts/service.js';
import { documentService, flaggedRow } from '../documents/crud.js';
import type { StoredDoc } from '../documents/store.js';
import { normalizeSystemNumber } from '../numbers/converters.js';
import { simulateCall } from '../simulations/call.js';
import { clicktocallSchema } from './schema.js';

/** Click-to-calls: a request connects an extension and a contact. */
export const clicktocalls = documentService({
  kind: 'clicktocall',
  endpoint: 'clicktocall',
  summary: ['name', 'extension'],
  // Kazoo's view names the realm `doc.relam`, which no document has: its rows show none
  row: (d) => {
    const { flags: _flags, ...row } = flaggedRow(['name', 'extension'])(d);
    return row;
  },
  schema: clicktocallSchema,
});

/** What a connect asks for: Kazoo reads each from the query string or the body. */
export interface ConnectRequest {
  contact?: unknown;
  /** answer once the call is placed, with its history entry (else at once, with the request: 202) */
  blocking: boolean;
  /** `auto_answer` (default true): the loopback leg answers itself */
  autoAnswer: boolean;
}

/** One side of the call: the number it shows, the name, where it is routed. */
interface Party {
  number: string;
  name: string;
  route: string;
}

/** A placed call as the history keeps it (Kazoo's `c2c_history` documents). */
export interface HistoryItem {
  timestamp: number;
  contact: string;
  call_id?: string;
  result: 'success' | 'error';
  cause?: string;
}

/**
 * The contact's number, checked against the click-to-call's whitelist: a tenant's patterns, run on
 * RE2's linear-time engine (one RE2 does not take was refused when written).
 */
function allowedContact(doc: Record<string, unknown>, contact: string): void {
  const whitelist = Array.isArray(doc.whitelist) ? doc.whitelist.filter((p): p is string => typeof p === 'string') : [];
  if (whitelist.length === 0 || whitelist.some((p) => linearExec(p, contact) !== null)) return;
  throw errors.refused("Contact doesn't match whitelist", { contact: { whitelist: { message: 'matches no pattern of the whitelist', value: contact } } });
}

/**
 * Connects a click-to-call (`GET`/`POST …/clicktocall/{id}/connect`): the extension rings first
 * (or the contact, with `dial_first: contact`), then the other is dialled, as Kazoo's originate
 * does — here a simulated call (its channel events, and their webhooks), authorized as the
 * click-to-call, which answers and bridges. Its history gets the call. Answers the history entry
 * when `blocking`, else Kazoo's originate request (202).
 */
export function connect(core: Core, accountId: string, id: string, req: ConnectRequest): { status: number; data: Record<string, unknown> } {
  return transaction(core.db, () => {
    const doc = clicktocalls.get(core, accountId, id).doc;
    if (req.contact === undefined || req.contact === null || req.contact === '') {
      throw errors.invalidField('contact', 'required', 'The contact extension for this click to call has not been set');
    }
    const contact = normalizeSystemNumber(core, String(req.contact));
    allowedContact(doc, contact);
    const realm = getAccount(core, accountId).realm;
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const exten = normalizeSystemNumber(core, String(doc.extension));
    const extension: Party = {
      number: normalizeSystemNumber(core, str(doc.outbound_callee_id_number) ?? exten),
      name: str(doc.outbound_callee_id_name) ?? exten,
      route: exten,
    };
    const outside: Party = { number: str(doc.caller_id_number) ?? contact, name: str(doc.name) ?? '', route: contact };
    const [caller, callee] = doc.dial_first === 'contact' ? [extension, outside] : [outside, extension];
    const callId = `c2c-${id}-${randomBytes(5).toString('hex')}`;
    const cavs = isObject(doc.custom_application_vars) ? doc.custom_application_vars : {};
    simulateCall(
      core,
      accountId,
      {
        direction: 'outbound',
        call_id: callId,
        caller_id_number: caller.number,
        caller_id_name: caller.name,
        callee_id_number: callee.number,
        callee_id_name: callee.name,
        custom_application_vars: cavs,
      },
      { authorizing: { id, type: 'clicktocall' } },
    );
    const item: HistoryItem = { timestamp: nowGregorian(), contact, call_id: callId, result: 'success' };
    stmt(core.db, 'INSERT INTO clicktocall_history (clicktocall_id, created, id, account_id, doc) VALUES (?, ?, ?, ?, ?)').run(
      id,
      Date.now(),
      newId(),
      accountId,
      JSON.stringify(item),
    );
    if (req.blocking) return { status: 200, data: { ...item } };
    const request: Record<string, unknown> = {
      application_name: 'transfer',
      application_data: { route: caller.route },
      call_id: callId,
      continue_on_fail: true,
      custom_application_vars: cavs,
      custom_channel_vars: {
        account_id: accountId,
        authorizing_id: id,
        authorizing_type: 'clicktocall',
        auto_answer_loopback: req.autoAnswer,
        from_uri: `${callee.number}@${realm}`,
        inherit_codec: false,
        loopback_request_uri: `${caller.number}@${realm}`,
        request_uri: `${caller.number}@${realm}`,
        retain_cid: true,
      },
      dial_endpoint_method: 'single',
      endpoints: [{ invite_format: 'loopback', route: callee.route, to_did: callee.route, to_realm: realm }],
      ignore_early_media: isObject(doc.media) && typeof doc.media.ignore_early_media === 'boolean' ? doc.media.ignore_early_media : true,
      loopback_bowout: false,
      origination_call_id: callId,
      outbound_call_id: callId,
      outbound_callee_id_name: callee.name,
      outbound_callee_id_number: callee.number,
      outbound_caller_id_name: caller.name,
      outbound_caller_id_number: caller.number,
      simplify_loopback: false,
      start_control_process: false,
      timeout: typeof doc.timeout === 'number' ? doc.timeout : 30,
    };
    for (const [field, from] of [['bypass_media', doc.bypass_media], ['presence_id', doc.presence_id], ['ringback', doc.ringback], ['custom_sip_headers', doc.custom_sip_headers]] as const) {
      if (from !== undefined) request[field] = from;
    }
    if (isObject(doc.music_on_hold) && typeof doc.music_on_hold.media_id === 'string') request.hold_media = doc.music_on_hold.media_id;
    return { status: 202, data: request };
  });
}

/** A history entry as listed: its id and what the call gave. */
export interface HistoryRow {
  id: string;
  created: number;
  doc: string;
}

/** A page of a click-to-call's history, newest first (oldest first when not `newestFirst`), in a time window. */
export function historyPage(
  core: Core,
  accountId: string,
  id: string,
  q: TimeWindow & PageQuery<CompoundKey>,
  newestFirst = true,
): Page<HistoryRow, CompoundKey> {
  clicktocalls.get(core, accountId, id);
  const where = ['clicktocall_id = ?'];
  const args: (string | number)[] = [id];
  if (q.createdFrom !== undefined) {
    where.push('created >= ?');
    args.push(q.createdFrom);
  }
  if (q.createdTo !== undefined) {
    where.push('created <= ?');
    args.push(q.createdTo);
  }
  return readKeysetPage<HistoryRow>(
    core.db,
    { select: 'SELECT id, created, doc FROM clicktocall_history', where, args, order: ['created', 'id'], descending: newestFirst, keyOf: (r) => [r.created, r.id] },
    q,
  );
}

/** A history entry as Kazoo lists it. */
export function historyJson(r: HistoryRow): Record<string, unknown> {
  return { id: r.id, ...(JSON.parse(r.doc) as Record<string, unknown>) };
}

/** Removes a click-to-call with its history. */
export function removeClicktocall(core: Core, accountId: string, id: string, ifMatch?: string): StoredDoc {
  return transaction(core.db, () => {
    const d = clicktocalls.remove(core, accountId, id, ifMatch);
    stmt(core.db, 'DELETE FROM clicktocall_history WHERE clicktocall_id = ?').run(id);
    return d;
  });
}

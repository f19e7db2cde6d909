import type { Core } from '../../core-type.js';
import { gregorianToUnixMs, unixMsToGregorian } from '../../util/time.js';
import { writeCdrs, cdrId, interactionTime, type CdrLeg } from '../cdrs/store.js';
import { newId } from '../../util/ids.js';
import { recordCall } from '../recordings/service.js';

// A simulated call as a switch knows it: its legs, from the first channel_create to the last
// channel_destroy. A call simulated whole ends at once; one kept up (`hangup: false`) is held in
// the channels table until a hangup or a transfer ends its legs. Either way each leg that ends
// leaves its CDR, and a call that records leaves its recording.

/** SIP codes of the hangup causes a simulated call may end with. */
export const HANGUP_CODES: Record<string, string> = {
  NORMAL_CLEARING: 'sip:200',
  USER_BUSY: 'sip:486',
  NO_ANSWER: 'sip:480',
  NO_USER_RESPONSE: 'sip:408',
  ORIGINATOR_CANCEL: 'sip:487',
  CALL_REJECTED: 'sip:603',
  UNALLOCATED_NUMBER: 'sip:404',
  NO_ROUTE_DESTINATION: 'sip:404',
  NORMAL_TEMPORARY_FAILURE: 'sip:503',
  RECOVERY_ON_TIMER_EXPIRE: 'sip:408',
};

/** One leg of a call. */
export interface Leg {
  callId: string;
  direction: 'inbound' | 'outbound';
  /** the number the leg rings (a transfer's target) */
  destination: string;
  startedMs: number;
  /** when it was answered; undefined while it rings (or when it never is) */
  answeredMs?: number;
  otherLeg?: string;
  /** its channel events go to webhooks (the leg a simulation names; legs it connects to stay quiet) */
  reported: boolean;
}

/** A call: the legs still up or just ended, and what every leg shares. */
export interface Call {
  /** the call's id: its first leg's call id, kept when a transfer ends that leg */
  id: string;
  accountId: string;
  /** the first leg's channel event fields (webhook payloads): caller, callee, who authorized it, … */
  base: Record<string, unknown>;
  legs: Leg[];
  /** the seconds a leg that is never answered rang (the simulation's `ringing_seconds`); undefined: until it ended */
  ringingSeconds?: number;
  record: boolean;
  /** Kazoo's Call-Interaction-ID: `<Gregorian seconds>-<8 hex>`, shared by every leg */
  interactionId: string;
  realm: string;
  /** the device's presence id (its `presence_id`, else its SIP username), when a device takes part */
  presenceId?: string;
  username?: string;
}

/**
 * Kazoo's default Call-Interaction-ID for a call starting at `startedMs`: its Gregorian seconds and
 * 8 hex digits, here the millisecond within that second (3) and 5 random ones. Kazoo's are all
 * random; these sort by time, so the indexes of CDRs by interaction take each new one at their
 * end (random ones put the calls of one second on pages across it, each written whole to the log
 * by every commit).
 */
export function newInteractionId(startedMs: number): string {
  const ms = (((Math.floor(startedMs) % 1000) + 1000) % 1000).toString(16).padStart(3, '0');
  return `${unixMsToGregorian(startedMs)}-${ms}${newId().slice(0, 5)}`;
}

/** The other way round: a leg's peer goes the other way. */
export const otherDirection = (d: string): 'inbound' | 'outbound' => (d === 'inbound' ? 'outbound' : 'inbound');

/** A call's channel variables (Kazoo's CCVs), as its channels and CDRs carry them: those the simulation set, and the account's own. */
export function channelVars(call: Call, recordings?: string[]): Record<string, unknown> {
  const b = call.base;
  const ccvs: Record<string, unknown> = { ...(b.custom_channel_vars as Record<string, unknown> | undefined) };
  ccvs.account_id = call.accountId;
  ccvs.reseller_id = b.reseller_id;
  ccvs.realm = call.realm;
  if (b.authorizing_id !== undefined) ccvs.authorizing_id = b.authorizing_id;
  if (b.authorizing_type !== undefined) ccvs.authorizing_type = b.authorizing_type;
  if (b.owner_id !== undefined) ccvs.owner_id = b.owner_id;
  if (b.local_resource_id !== undefined) ccvs.resource_id = b.local_resource_id;
  ccvs.inception = b.inception;
  ccvs.bridge_id = call.id;
  if (recordings) ccvs.media_recordings = recordings;
  return ccvs;
}

/** The CDR of a leg that ended at `endMs` with `cause`. */
export function legCdr(call: Call, leg: Leg, endMs: number, cause: string, recordings?: string[]): CdrLeg {
  const b = call.base;
  const duration = Math.max(0, Math.round((endMs - leg.startedMs) / 1000));
  const ringing = Math.min(
    duration,
    leg.answeredMs === undefined ? (call.ringingSeconds ?? duration) : Math.round((leg.answeredMs - leg.startedMs) / 1000),
  );
  const peer = leg.otherLeg ? call.legs.find((l) => l.callId === leg.otherLeg) : undefined;
  const isFirst = leg.callId === call.id;
  const ccvs = channelVars(call, recordings);
  const [key] = call.interactionId.split('-').slice(1);
  const doc: Record<string, unknown> = {
    call_id: leg.callId,
    call_direction: leg.direction,
    caller_id_name: b.caller_id_name,
    caller_id_number: b.caller_id_number,
    callee_id_name: isFirst ? b.callee_id_name : '',
    callee_id_number: leg.destination,
    from: b.from,
    from_uri: b.from,
    to: `${leg.destination}@${call.realm}`,
    to_uri: `${leg.destination}@${call.realm}`,
    request: `${leg.destination}@${call.realm}`,
    custom_channel_vars: ccvs,
    custom_application_vars: b.custom_application_vars ?? {},
    duration_seconds: duration,
    ringing_seconds: ringing,
    billing_seconds: leg.answeredMs === undefined ? 0 : duration - ringing,
    hangup_cause: cause,
    hangup_code: HANGUP_CODES[cause] ?? 'sip:200',
    timestamp: unixMsToGregorian(endMs),
    channel_created_time: leg.startedMs * 1000,
    interaction_id: call.interactionId,
    interaction_key: key,
    interaction_time: interactionTime(call.interactionId),
  };
  if (call.presenceId) doc.presence_id = `${call.presenceId}@${call.realm}`;
  if (peer) {
    doc.other_leg_call_id = peer.callId;
    doc.other_leg_direction = peer.direction;
    doc.other_leg_caller_id_name = b.caller_id_name;
    doc.other_leg_caller_id_number = b.caller_id_number;
    doc.other_leg_destination_number = peer.destination;
  }
  return {
    id: cdrId(leg.callId, gregorianMs(call.interactionId)),
    ownerId: b.owner_id as string | undefined,
    authorizingId: b.authorizing_id as string | undefined,
    interactionId: call.interactionId,
    interactionTime: interactionTime(call.interactionId),
    // a leg made in the same millisecond as the first still comes after it
    channelTime: leg.startedMs * 1000 + (isFirst ? 0 : 1),
    doc,
  };
}

/** The unix ms of an interaction's start (its id begins with its Gregorian seconds). */
function gregorianMs(interactionId: string): number {
  return gregorianToUnixMs(interactionTime(interactionId));
}

/**
 * Writes what the ending legs of a call leave: their CDRs and, for a call that records, the
 * recording of its first leg once it was answered. `whole`: the call was simulated whole, so no
 * leg of its interaction was written before.
 */
export function legsEnded(core: Core, call: Call, ended: readonly Leg[], endMs: number, cause: string, whole = false): CdrLeg[] {
  const first = ended.find((l) => l.callId === call.id);
  let recordings: string[] | undefined;
  if (call.record && first?.answeredMs !== undefined) {
    const cdr = cdrId(first.callId, gregorianMs(call.interactionId));
    recordings = [recordCall(core, call, first, endMs, cdr)];
  }
  const legs = ended.map((l) => legCdr(call, l, endMs, cause, l === first ? recordings : undefined));
  writeCdrs(core, call.accountId, legs, endMs, whole);
  return legs;
}

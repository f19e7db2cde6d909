import type { Core } from '../../core-type.js';
import { compileValidator } from '../../schema/validate.js';
import { getAccount } from '../accounts/service.js';
import { newId } from '../../util/ids.js';
import { nowGregorian } from '../../util/time.js';
import type { PlatformEvent } from '../../delivery/bus.js';
import { listEvent, type EmittedEvent } from './registry.js';

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

/** What the `call` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateCall = compileValidator({
  type: 'object',
  properties: {
    direction: { type: 'string', enum: ['inbound', 'outbound'], default: 'inbound' },
    caller_id_number: { type: 'string', minLength: 1, default: '+14155550100' },
    caller_id_name: { type: 'string', default: 'Caller' },
    callee_id_number: { type: 'string', minLength: 1, default: '+14155550199' },
    callee_id_name: { type: 'string', default: '' },
    answer: { type: 'boolean', default: true },
    bridge: { type: 'boolean', default: true },
    hangup_cause: { type: 'string', enum: Object.keys(HANGUP_CODES), default: 'NORMAL_CLEARING' },
    internal: { type: 'boolean', default: false },
    duration_seconds: { type: 'integer', minimum: 0, default: 30 },
    ringing_seconds: { type: 'integer', minimum: 0, default: 4 },
    call_id: { type: 'string', minLength: 1 },
  },
});

/**
 * A call leg as a switch reports it: `channel_create`, then `channel_answer` (when answered),
 * `channel_bridge` (when bridged to another leg) and `channel_destroy` with the hangup cause and
 * code, all sharing one `call_id`. `internal: true` makes it a loopback leg, which hooks with
 * `include_internal_legs: false` do not receive.
 */
export function simulateCall(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateCall(fields);
  const account = getAccount(core, accountId);
  const realm = account.realm;
  const callId = String(input.call_id ?? `${newId()}@${realm}`);
  const otherLeg = input.bridge ? `${newId()}@${realm}` : undefined;
  const caller = String(input.caller_id_number);
  const callee = String(input.callee_id_number);
  const inbound = input.direction === 'inbound';
  const base: Record<string, unknown> = {
    account_id: accountId,
    call_direction: input.direction,
    call_id: callId,
    caller_id_name: input.caller_id_name,
    caller_id_number: caller,
    callee_id_name: input.callee_id_name,
    callee_id_number: callee,
    from: `${caller}@${realm}`,
    to: `${callee}@${realm}`,
    request: `${callee}@${realm}`,
    inception: inbound ? 'offnet' : 'onnet',
    is_internal_leg: input.internal === true,
    local_resource_used: !inbound,
    emergency_resource_used: false,
    call_forwarded: false,
    custom_channel_vars: {},
    custom_application_vars: {},
  };
  if (account.tree.length > 0) base.reseller_id = account.tree[account.tree.length - 1];
  // the legs' payloads share these fields: serialised once, each leg's own fields appended
  const baseJson = JSON.stringify(base);
  const events: EmittedEvent[] = [];
  const emit = (event: string, extra?: Record<string, unknown>) => {
    const published = legEvent(event, accountId, base, baseJson, extra, nowGregorian());
    core.bus.publish(published);
    events.push(listEvent(event, published));
  };
  emit('channel_create');
  if (input.answer) emit('channel_answer');
  if (input.answer && input.bridge) {
    emit('channel_bridge', { other_leg_call_id: otherLeg, original_number: callee, other_leg_destination_number: callee });
  }
  const answered = input.answer === true;
  const duration = Number(input.duration_seconds);
  const ringing = Math.min(Number(input.ringing_seconds), duration);
  emit('channel_destroy', {
    ...(answered && input.bridge ? { other_leg_call_id: otherLeg } : {}),
    hangup_cause: input.hangup_cause,
    hangup_code: HANGUP_CODES[String(input.hangup_cause)],
    duration_seconds: duration,
    ringing_seconds: ringing,
    billing_seconds: answered ? duration - ringing : 0,
  });
  return events;
}

/**
 * One leg's event: the call's fields, the leg's own, `hook_event` and `timestamp` — as the object
 * `{...base, ...extra, hook_event, timestamp}` and, made from `baseJson` (the base's JSON text),
 * exactly the text `JSON.stringify` of it gives, so that neither its deliveries nor the answer
 * serialise it again. A field of `extra` the object would not append (one `base` has too, or an
 * integer-like one) makes it serialised whole instead.
 */
export function legEvent(
  event: string,
  accountId: string,
  base: Record<string, unknown>,
  baseJson: string,
  extra: Record<string, unknown> | undefined,
  timestamp: number,
): PlatformEvent {
  const payload: Record<string, unknown> = { ...base };
  let json: string | undefined = baseJson.length > 2 ? `${baseJson.slice(0, -1)},` : '{';
  if (Object.hasOwn(base, 'hook_event') || Object.hasOwn(base, 'timestamp')) json = undefined;
  if (extra) {
    for (const k in extra) {
      const v = extra[k];
      // a key the object would not append: one base has, one set last, or an integer-like one (placed first)
      if (Object.hasOwn(base, k) || k === 'hook_event' || k === 'timestamp' || (k.charCodeAt(0) >= 48 && k.charCodeAt(0) <= 57)) json = undefined;
      payload[k] = v;
      if (json !== undefined && v !== undefined) json += `${keyJson(k)}:${typeof v === 'number' && Number.isFinite(v) ? String(v) : JSON.stringify(v)},`;
    }
  }
  payload.hook_event = event;
  payload.timestamp = timestamp;
  return json === undefined
    ? { type: event, accountId, payload }
    : { type: event, accountId, payload, json: `${json}"hook_event":${keyJson(event)},"timestamp":${timestamp}}` };
}

const keyJsons = new Map<string, string>();

/** The JSON text of a field name (or event name): the few a simulation uses, serialised once each. */
function keyJson(key: string): string {
  let json = keyJsons.get(key);
  if (json === undefined) {
    json = JSON.stringify(key);
    if (keyJsons.size < 1000) keyJsons.set(key, json);
  }
  return json;
}

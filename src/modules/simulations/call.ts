import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { getAccount, resellerIdOf } from '../accounts/service.js';
import { getDoc } from '../documents/store.js';
import { findJobResource, GLOBAL_OWNER } from '../resources/service.js';
import { getUser } from '../users/service.js';
import { newTimeOrderedId } from '../../util/ids.js';
import { nowGregorian } from '../../util/time.js';
import { HANGUP_CODES, legsEnded, newInteractionId, otherDirection, type Call, type Leg } from '../channels/calls.js';
import { legEvent } from '../channels/events.js';
import { saveCall } from '../channels/store.js';
import { devicePresenceId } from '../presence/service.js';
import type { StoredDoc } from '../documents/store.js';
import { listEvent, type EmittedEvent } from './registry.js';

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
    device_id: { type: 'string', minLength: 1, description: "the device the call comes from or rings: authorizing_id, and its owner's owner_id" },
    user_id: { type: 'string', minLength: 1, description: 'the user the call belongs to (owner_id); alone, the authorizing user' },
    resource_id: { type: 'string', minLength: 1, description: "the carrier the call goes through: local_resource_id (an account's), or local_resource_used false (a global one)" },
    custom_channel_vars: { type: 'object' },
    custom_application_vars: { type: 'object' },
    hangup: {
      type: 'boolean',
      default: true,
      description: '`false` keeps the call up: its legs are channels until a `hangup` simulation or the channel\'s hangup action ends it',
    },
    record: { type: 'boolean', default: false, description: 'records the answered call: a recording, listed in its CDR' },
  },
});

/**
 * Who a call is authorized as, as Kazoo's channel variables say it, written into `base`: the
 * device it comes from (and that device's owner), else the user named alone. An unknown device
 * or user is a 404; a user who does not own the device named, a 400.
 */
function addAuthorizing(core: Core, accountId: string, input: Record<string, unknown>, base: Record<string, unknown>): StoredDoc | undefined {
  const userId = input.user_id as string | undefined;
  if (userId !== undefined) getUser(core, accountId, userId);
  if (input.device_id === undefined) {
    if (userId === undefined) return undefined;
    base.authorizing_id = userId;
    base.authorizing_type = 'user';
    base.owner_id = userId;
    return undefined;
  }
  const device = getDoc(core, 'device', accountId, String(input.device_id));
  const owner = device.doc.owner_id as string | undefined;
  if (owner && userId && owner !== userId) {
    throw errors.invalidField('user_id', 'invalid', 'The device belongs to another user', { value: userId, target: owner });
  }
  base.authorizing_id = device.id;
  base.authorizing_type = 'device';
  const ownerId = owner ?? userId;
  if (ownerId) base.owner_id = ownerId;
  return device;
}

/**
 * The carrier fields, written into `base`: Kazoo marks every call `local_resource_used` unless it
 * went through a global resource, names an account's resource in `local_resource_id`, and tells
 * whether the resource is an emergency one.
 */
function addCarrier(core: Core, accountId: string, resourceId: unknown, base: Record<string, unknown>): void {
  if (resourceId === undefined) return;
  const resource = findJobResource(core, accountId, String(resourceId));
  if (!resource) throw errors.badIdentifier(String(resourceId));
  base.emergency_resource_used = resource.doc.emergency === true;
  if (resource.accountId === GLOBAL_OWNER) base.local_resource_used = false;
  else base.local_resource_id = resource.id;
}

/** What places a simulated call besides its fields: the document it is authorized as, when not a device or user (a click-to-call). */
export interface CallOptions {
  authorizing?: { id: string; type: string };
}

/**
 * A call leg as a switch reports it: `channel_create`, then `channel_answer` (when answered),
 * `channel_bridge` (when bridged to another leg) and `channel_destroy` with the hangup cause and
 * code, all sharing one `call_id`. `internal: true` makes it a loopback leg, which hooks with
 * `include_internal_legs: false` do not receive. Its legs leave their CDRs (and, with `record`,
 * a recording); with `hangup: false` the call stays up, its legs channels, until it is hung up.
 */
export function simulateCall(core: Core, accountId: string, data: Record<string, unknown>, opts: CallOptions = {}): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateCall(fields);
  const account = getAccount(core, accountId);
  const realm = account.realm;
  const callId = String(input.call_id ?? `${newTimeOrderedId()}@${realm}`);
  const otherLeg = input.bridge ? `${newTimeOrderedId()}@${realm}` : undefined;
  const caller = String(input.caller_id_number);
  const callee = String(input.callee_id_number);
  const inbound = input.direction === 'inbound';
  // Kazoo's channel event fields (its webhooks app's base event), a field absent where Kazoo's is
  // undefined. One literal of one shape, the optional fields added after: an object spread in the
  // literal made V8 define each field through its slow path (a tenth of the call's instructions).
  const base: Record<string, unknown> = {
    account_id: accountId,
    call_direction: input.direction,
    call_forwarded: false,
    call_id: callId,
    callee_id_name: input.callee_id_name,
    callee_id_number: callee,
    caller_id_name: input.caller_id_name,
    caller_id_number: caller,
    custom_channel_vars: input.custom_channel_vars ?? {},
    custom_application_vars: input.custom_application_vars ?? {},
    from: `${caller}@${realm}`,
    // a call from outside carries the request it came in with; one from the platform, onnet
    inception: inbound ? `${callee}@${realm}` : 'onnet',
    is_internal_leg: input.internal === true,
    local_resource_used: true,
    emergency_resource_used: false,
    request: `${callee}@${realm}`,
    reseller_id: resellerIdOf(core, account),
    to: `${callee}@${realm}`,
  };
  const device = addAuthorizing(core, accountId, input, base);
  if (opts.authorizing) {
    base.authorizing_id = opts.authorizing.id;
    base.authorizing_type = opts.authorizing.type;
  }
  addCarrier(core, accountId, input.resource_id, base);
  // the legs' payloads share these fields: serialised once, each leg's own fields appended
  const baseJson = JSON.stringify(base);
  const events: EmittedEvent[] = [];
  const emit = (event: string, extra?: Record<string, unknown>) => {
    const published = legEvent(event, accountId, base, baseJson, extra, nowGregorian());
    core.bus.publish(published);
    events.push(listEvent(event, published));
  };
  const answered = input.answer === true;
  const bridged = answered && input.bridge === true;
  const keep = input.hangup === false;
  const duration = Number(input.duration_seconds);
  const ringing = Math.min(Number(input.ringing_seconds), duration);
  // a call simulated whole took place over the last `duration` seconds; one kept up is answered now
  const nowMs = Date.now();
  const startedMs = nowMs - (keep ? (answered ? ringing : 0) : duration) * 1000;
  const first: Leg = { callId, direction: inbound ? 'inbound' : 'outbound', destination: callee, startedMs, reported: true };
  if (answered) first.answeredMs = startedMs + ringing * 1000;
  const call: Call = {
    id: callId,
    accountId,
    base,
    legs: [first],
    // a call kept up that is not answered rings until it ends
    ringingSeconds: keep && !answered ? undefined : ringing,
    record: input.record === true,
    interactionId: newInteractionId(startedMs),
    realm,
  };
  if (device) {
    const sip = device.doc.sip as Record<string, unknown> | undefined;
    if (typeof sip?.username === 'string') call.username = sip.username;
    call.presenceId = devicePresenceId(device);
  }
  if (bridged && otherLeg) {
    first.otherLeg = otherLeg;
    call.legs.push({ callId: otherLeg, direction: otherDirection(first.direction), destination: callee, startedMs, answeredMs: first.answeredMs, otherLeg: callId, reported: false });
  }
  emit('channel_create');
  if (answered) emit('channel_answer');
  if (bridged) emit('channel_bridge', { other_leg_call_id: otherLeg, original_number: callee, other_leg_destination_number: callee });
  if (keep) {
    saveCall(core, call, nowMs);
    return events;
  }
  emit('channel_destroy', {
    ...(bridged ? { other_leg_call_id: otherLeg } : {}),
    hangup_cause: input.hangup_cause,
    hangup_code: HANGUP_CODES[String(input.hangup_cause)],
    duration_seconds: duration,
    ringing_seconds: ringing,
    billing_seconds: answered ? duration - ringing : 0,
  });
  legsEnded(core, call, call.legs, nowMs, String(input.hangup_cause), true);
  return events;
}

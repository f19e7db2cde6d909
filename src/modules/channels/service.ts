import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { transaction } from '../../store/db.js';
import { newTimeOrderedId } from '../../util/ids.js';
import { nowGregorian, unixMsToGregorian } from '../../util/time.js';
import { listEvent, type EmittedEvent } from '../simulations/registry.js';
import { channelVars, HANGUP_CODES, legsEnded, type Call, type Leg } from './calls.js';
import { legEvent } from './events.js';
import { dropCall, getChannel, saveCall, type LiveLeg } from './store.js';

/** The fields every view of a leg shares. */
function legFields(l: LiveLeg, nowMs: number): Record<string, unknown> {
  const { call, leg } = l;
  const b = call.base;
  const out: Record<string, unknown> = { answered: leg.answeredMs !== undefined };
  for (const k of ['authorizing_id', 'authorizing_type'] as const) if (b[k] !== undefined) out[k] = b[k];
  out.channel_authorized = true;
  out.custom_application_vars = b.custom_application_vars ?? {};
  out.custom_channel_vars = channelVars(call);
  out.destination = leg.destination;
  out.elapsed = Math.max(0, Math.floor((nowMs - leg.startedMs) / 1000));
  out.is_loopback = b.is_internal_leg === true;
  if (b.owner_id !== undefined) out.owner_id = b.owner_id;
  if (call.presenceId) out.presence_id = `${call.presenceId}@${call.realm}`;
  out.reseller_id = b.reseller_id;
  if (b.local_resource_id !== undefined) out.resource_id = b.local_resource_id;
  out.timestamp = unixMsToGregorian(leg.startedMs);
  if (call.username) out.username = call.username;
  return out;
}

/** A leg as Kazoo's channel listings answer it (ecallmgr's channel, without the keys crossbar removes). */
export function channelSummary(l: LiveLeg, nowMs: number = Date.now()): Record<string, unknown> {
  const { elapsed, ...rest } = legFields(l, nowMs);
  return {
    ...rest,
    direction: l.leg.direction,
    elapsed_s: elapsed,
    interaction_id: l.call.interactionId,
    is_onhold: false,
    ...(l.leg.otherLeg ? { other_leg: l.leg.otherLeg } : {}),
    uuid: l.leg.callId,
  };
}

/** A leg as `GET channels/{uuid}` answers it (ecallmgr's answer to a channel query, its keys normalised). */
export function channelDetail(l: LiveLeg, nowMs: number = Date.now()): Record<string, unknown> {
  const { elapsed, ...rest } = legFields(l, nowMs);
  const { call, leg } = l;
  const b = call.base;
  return {
    ...rest,
    call_direction: leg.direction,
    call_id: leg.callId,
    call_interaction_id: call.interactionId,
    callee_id_name: b.callee_id_name,
    callee_id_number: leg.destination,
    caller_id_name: b.caller_id_name,
    caller_id_number: b.caller_id_number,
    elapsed_seconds: elapsed,
    from: b.from,
    is_on_hold: false,
    ...(leg.otherLeg ? { other_leg_call_id: leg.otherLeg } : {}),
    to: `${leg.destination}@${call.realm}`,
  };
}

/** The channel event fields of a leg: the call's, with the leg's own call id, direction and destination. */
function legPayload(call: Call, leg: Leg): Record<string, unknown> {
  if (leg.callId === call.base.call_id) return call.base;
  const dest = `${leg.destination}@${call.realm}`;
  return { ...call.base, call_id: leg.callId, call_direction: leg.direction, callee_id_number: leg.destination, request: dest, to: dest };
}

/** Publishes a reported leg's channel event; answers it as the simulations endpoint lists it. */
function emitLeg(core: Core, call: Call, leg: Leg, event: string, extra?: Record<string, unknown>): EmittedEvent {
  const payload = legPayload(call, leg);
  const published = legEvent(event, call.accountId, payload, JSON.stringify(payload), extra, nowGregorian());
  core.bus.publish(published);
  return listEvent(event, published);
}

/**
 * Ends legs of a call at `nowMs`: each reported one fires `channel_destroy` with the figures its
 * CDR keeps, then their CDRs (and recording) are written.
 */
function endLegs(core: Core, call: Call, ended: Leg[], cause: string, nowMs: number): EmittedEvent[] {
  const written = legsEnded(core, call, ended, nowMs, cause);
  const events: EmittedEvent[] = [];
  ended.forEach((leg, i) => {
    if (!leg.reported) return;
    const cdr = written[i].doc;
    events.push(
      emitLeg(core, call, leg, 'channel_destroy', {
        ...(leg.otherLeg && leg.answeredMs !== undefined ? { other_leg_call_id: leg.otherLeg } : {}),
        hangup_cause: cause,
        hangup_code: HANGUP_CODES[cause],
        duration_seconds: cdr.duration_seconds,
        ringing_seconds: cdr.ringing_seconds,
        billing_seconds: cdr.billing_seconds,
      }),
    );
  });
  return events;
}

/** Hangs up the call a leg of the account belongs to: every leg ends with `cause`. Answers the events fired. */
export function hangupCall(core: Core, accountId: string, uuid: string, cause = 'NORMAL_CLEARING'): EmittedEvent[] {
  return transaction(core.db, () => {
    const { call } = getChannel(core, accountId, uuid);
    dropCall(core, call);
    return endLegs(core, call, call.legs, cause, Date.now());
  });
}

/**
 * A blind transfer, as Kazoo's channel action does it: the leg's peer (the transferee) is
 * connected to a new leg ringing `target`, answered at once, and the leg itself hangs up. A leg
 * that is not bridged cannot transfer (400, as Kazoo). Answers the events fired.
 */
export function transferCall(core: Core, accountId: string, uuid: string, target: string): EmittedEvent[] {
  return transaction(core.db, () => {
    const { call, leg: transferor } = getChannel(core, accountId, uuid);
    const transferee = call.legs.find((l) => l.callId === transferor.otherLeg);
    if (!transferee) throw errors.invalidField('other_leg_call_id', 'required', 'Channel is not bridged');
    const nowMs = Date.now();
    const leg: Leg = {
      callId: `${newTimeOrderedId()}@${call.realm}`,
      direction: 'outbound',
      destination: target,
      startedMs: nowMs,
      answeredMs: nowMs,
      otherLeg: transferee.callId,
      reported: true,
    };
    call.legs.push(leg);
    const events = [
      emitLeg(core, call, leg, 'channel_create'),
      emitLeg(core, call, leg, 'channel_answer'),
      emitLeg(core, call, leg, 'channel_bridge', { other_leg_call_id: transferee.callId, original_number: target, other_leg_destination_number: target }),
    ];
    events.push(...endLegs(core, call, [transferor], 'NORMAL_CLEARING', nowMs));
    transferee.otherLeg = leg.callId;
    call.legs = call.legs.filter((l) => l !== transferor);
    saveCall(core, call, nowMs, true);
    return events;
  });
}

/** Runs a channel action (`hangup`, or `transfer` to `target`, which it needs: 400 as Kazoo); answers Kazoo's message. */
export function channelAction(core: Core, accountId: string, uuid: string, action: string, target: unknown): string {
  if (action === 'hangup') {
    hangupCall(core, accountId, uuid);
    return 'hangup initiated';
  }
  // the channel must be up and bridged before the target is looked at, as Kazoo checks them
  const { leg } = getChannel(core, accountId, uuid);
  if (!leg.otherLeg) throw errors.invalidField('other_leg_call_id', 'required', 'Channel is not bridged');
  if (typeof target !== 'string' || target === '') throw errors.invalidField('target', 'required', 'No target destination specified');
  transferCall(core, accountId, uuid, target);
  return 'transfer initiated';
}

/** A metaflow run on a channel (`PUT`): those a simulated switch can honour, `hangup` and `transfer`. */
export function runMetaflow(core: Core, accountId: string, uuid: string, flow: Record<string, unknown>): string {
  const module = String(flow.module);
  if (module !== 'hangup' && module !== 'transfer') {
    throw errors.invalidField('module', 'enum', 'tel runs the metaflows hangup and transfer on a simulated channel', { value: module, target: ['hangup', 'transfer'] });
  }
  channelAction(core, accountId, uuid, module, (flow.data as Record<string, unknown> | undefined)?.target);
  return 'metaflow sent';
}

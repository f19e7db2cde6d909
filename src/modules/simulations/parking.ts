import type { Core } from '../../core-type.js';
import { compileValidator } from '../../schema/validate.js';
import { getAccount } from '../accounts/service.js';
import { errors } from '../../errors.js';
import { newId } from '../../util/ids.js';
import { freeSlot, parkCall, parkedCall } from '../parked-calls/service.js';
import type { EmittedEvent } from './registry.js';

/** What happens to a parked call after it is parked. */
const OUTCOMES: Record<string, string | undefined> = {
  parked: undefined,
  retrieved: 'PARK_RETRIEVED',
  abandoned: 'PARK_ABANDONED',
};

/** What the `parking` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateParking = compileValidator({
  type: 'object',
  required: ['slot'],
  properties: {
    slot: { type: 'integer', minimum: 0 },
    caller_id_number: { type: 'string', minLength: 1, default: '+14155550100' },
    caller_id_name: { type: 'string', default: 'Caller' },
    callee_id_number: { type: 'string', default: '' },
    callee_id_name: { type: 'string', default: 'Parking' },
    outcome: { type: 'string', enum: Object.keys(OUTCOMES), default: 'parked' },
    call_id: { type: 'string', minLength: 1 },
  },
});

/**
 * A call parked in a slot: `PARK_PARKED`, then `PARK_RETRIEVED` or `PARK_ABANDONED` when the
 * `outcome` says so, each a `parking` event with the parking sample's fields. A call left parked
 * holds its slot (`parked_calls` lists it) until a later simulation of the slot retrieves or
 * abandons it; parking in a slot that holds a call is refused, as Kazoo tells the parker.
 */
export function simulateParking(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateParking(fields);
  const account = getAccount(core, accountId);
  const slot = Number(input.slot);
  const held = parkedCall(core, accountId, String(slot));
  if (held && input.outcome === 'parked') throw errors.invalidField('slot', 'unique', 'The slot holds a parked call', { value: slot });
  const callId = held ? String(held.call_id) : String(input.call_id ?? `${newId()}@${account.realm}`);
  const base = {
    account_id: accountId,
    call_id: callId,
    caller_id_name: held ? held.cid_name : input.caller_id_name,
    caller_id_number: held ? held.cid_number : input.caller_id_number,
    callee_id_name: input.callee_id_name,
    callee_id_number: input.callee_id_number || `*3${slot}`,
    parking_slot: slot,
  };
  // a held call is only retrieved or abandoned; a new one is parked first
  const names = [held ? undefined : 'PARK_PARKED', OUTCOMES[String(input.outcome)]].filter((n): n is string => n !== undefined);
  if (input.outcome === 'parked') {
    const presence = `*3${slot}`;
    parkCall(core, accountId, String(slot), {
      call_id: callId,
      attended: false,
      slot_call_id: callId,
      presence_user: presence,
      presence_realm: account.realm,
      presence_id: `${presence}@${account.realm}`,
      cid_number: input.caller_id_number,
      cid_name: input.caller_id_name,
      cid_uri: `${String(input.caller_id_number)}@${account.realm}`,
    });
  } else if (held) {
    freeSlot(core, accountId, String(slot));
  }
  return names.map((eventName) => {
    const payload = { ...base, event_name: eventName };
    core.bus.publish({ type: 'parking', accountId, payload });
    return { event: 'parking', ...payload };
  });
}

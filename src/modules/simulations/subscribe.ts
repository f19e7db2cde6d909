import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { newId } from '../../util/ids.js';
import { getAccount } from '../accounts/service.js';
import { getDoc } from '../documents/store.js';
import { devicePresenceId, subscribe } from '../presence/service.js';
import type { EmittedEvent } from './registry.js';

/** What the `subscribe` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateSubscribe = compileValidator({
  type: 'object',
  required: ['device_id', 'presentity'],
  properties: {
    device_id: { type: 'string', minLength: 1, description: 'the phone that watches (its SIP username is the watcher)' },
    presentity: { type: 'string', minLength: 1, maxLength: 128, description: 'what it watches: an extension, a presence id, a parking slot (`*3101`)' },
    package: { type: 'string', enum: ['dialog', 'presence', 'message-summary'], default: 'dialog' },
    expires: { type: 'integer', minimum: 1, maximum: 86_400, default: 3600, description: 'seconds the subscription lasts' },
    call_id: { type: 'string', minLength: 1, description: "the SUBSCRIBE dialog's call id (a new one by default; the same one refreshes it)" },
  },
});

/**
 * A phone subscribes to a presence id (a busy lamp field): the presence servers keep the
 * subscription until it expires, `presence` lists it, and states set by hand are sent to it.
 */
export function simulateSubscribe(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateSubscribe(fields);
  const realm = getAccount(core, accountId).realm;
  const device = getDoc(core, 'device', accountId, String(input.device_id));
  const user = devicePresenceId(device);
  if (!user) throw errors.invalidField('device_id', 'invalid', 'The device has no SIP username to subscribe with', { value: device.id });
  const callId = String(input.call_id ?? `${newId()}@${realm}`);
  const now = Date.now();
  const s = { presentity: String(input.presentity), package: String(input.package), callId, watcher: `${user}@${realm}`, expiresMs: now + Number(input.expires) * 1000 };
  subscribe(core, accountId, s, now);
  return [{ event: 'subscribe', call_id: callId, presentity: s.presentity, package: s.package, from: s.watcher, expires: input.expires }];
}

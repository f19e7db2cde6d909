import type { Core } from '../../core-type.js';
import { compileValidator } from '../../schema/validate.js';
import { deregister, register } from '../registrations/service.js';
import type { EmittedEvent } from './registry.js';

/** What the `registration` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateRegistration = compileValidator({
  type: 'object',
  required: ['device_id'],
  properties: {
    device_id: { type: 'string', minLength: 1, description: 'the device whose phone registers (it needs a SIP username)' },
    action: {
      enum: ['register', 'unregister', 'expire'],
      default: 'register',
      description: "`register` (again: a refresh), `unregister` (a REGISTER with Expires: 0) or `expire` (its contact lapses)",
    },
    expires: { type: 'integer', minimum: 1, maximum: 86_400, description: "seconds it stays registered without a refresh (default: the device's sip.expire_seconds, else 300)" },
    user_agent: { type: 'string', minLength: 1, maxLength: 256, format: 'printable' },
    network_ip: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[0-9A-Fa-f.:]+$', description: "the phone's address (default 192.0.2.10)" },
    network_port: { type: 'string', pattern: '^[0-9]{1,5}$', description: "the phone's port (default 5060)" },
  },
});

/**
 * A device's phone registers, unregisters, or lets its registration lapse: the registration
 * `GET …/registrations` and `…/devices/status` answer, and Kazoo's `register` notification (the
 * first registration only) or `deregister` (unless the device suppresses it) to `notifications`
 * hooks. A registration nobody refreshes lapses by itself after `expires` seconds.
 */
export function simulateRegistration(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateRegistration(fields);
  const deviceId = String(input.device_id);
  const action = String(input.action);
  const done =
    action === 'register'
      ? register(core, accountId, deviceId, {
          expires: input.expires as number | undefined,
          userAgent: input.user_agent as string | undefined,
          networkIp: input.network_ip as string | undefined,
          networkPort: input.network_port as string | undefined,
        })
      : deregister(core, accountId, deviceId);
  const events: EmittedEvent[] = [{ event: 'registration', action, device_id: deviceId, ...done.registration.fields }];
  if (done.notification) events.push({ event: 'notifications', ...done.notification });
  return events;
}

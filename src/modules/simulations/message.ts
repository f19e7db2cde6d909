import type { Core } from '../../core-type.js';
import { compileValidator } from '../../schema/validate.js';
import { getAccount } from '../accounts/service.js';
import { storeMessage } from '../messages/service.js';
import type { EmittedEvent, Simulation } from './registry.js';

/** What the `sms` and `mms` simulations take besides `kind` (their schema is in the OpenAPI document). */
export const validateMessage = compileValidator({
  type: 'object',
  properties: {
    direction: { type: 'string', enum: ['inbound', 'outbound'], default: 'inbound', description: 'a message arriving, or one sent (Kazoo fires only for those arriving)' },
    from: { type: 'string', minLength: 1, default: '+14155550100' },
    to: { type: 'string', minLength: 1, default: '+14155550199' },
    body: { type: 'string', default: 'Hello from tel', description: "the text (an mms: what its carrier sent, such as the media's URL)" },
    origin: { type: 'string', enum: ['offnet', 'onnet'], default: 'offnet', description: 'through a carrier (offnet) or between the platform\'s own devices (onnet)' },
    charges: { type: 'number', minimum: 0 },
    message_id: { type: 'string', minLength: 1 },
  },
});

/**
 * A message simulation of a type (`sms` or `mms`): the message is stored (listed by the `sms` and
 * `mms` endpoints, an arriving one from a carrier as Kazoo's `inbound`), and one event of that
 * hook type carries the fields of Kazoo's webhooks app — `id`, `account_id`, `type`, `from`,
 * `to`, `body`, `origin` and, when the carrier priced it, `charges`.
 */
export function messageSimulation(type: 'sms' | 'mms'): Simulation {
  return (core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] => {
    const { kind: _kind, ...fields } = data;
    const input = validateMessage(fields);
    getAccount(core, accountId);
    const inbound = input.direction === 'inbound';
    const offnet = input.origin === 'offnet';
    const { event } = storeMessage(
      core,
      type,
      accountId,
      {
        from: String(input.from),
        to: String(input.to),
        body: String(input.body),
        routeType: offnet ? 'offnet' : 'onnet',
        direction: inbound ? 'inbound' : 'outbound',
        authorizationType: inbound && offnet ? 'resource' : 'account',
        messageId: input.message_id as string | undefined,
      },
      input.charges as number | undefined,
    );
    return [{ event: type, direction: input.direction, ...event }];
  };
}

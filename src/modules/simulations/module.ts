import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { WITHOUT_REVISION } from '../../http/envelope.js';
import { dataObject } from '../../http/request.js';
import type { TelModule } from '../types.js';
import { transaction } from '../../store/db.js';
import { groupCommit } from '../../store/group-commit.js';
import { eventsJson, type EmittedEvent } from './registry.js';
import { validateCall } from './call.js';
import { validateParking } from './parking.js';
import { validateInput as validateQueueCall } from './queue-call.js';
import { validateInput as validateVoicemail } from './voicemail.js';
import { validateMessage } from './message.js';
import { validateNotification } from './notification.js';
import { validateObject } from './object.js';
import { validateHangup } from './hangup.js';
import { validateSubscribe } from './subscribe.js';
import { validateFax } from './fax.js';
import { validateRegistration } from './registration.js';

/** What each simulation kind validates, for the route's description, in the contract's order. */
const SIMULATION_INPUTS = {
  call: validateCall,
  sms: validateMessage,
  mms: validateMessage,
  queue_call: validateQueueCall,
  parking: validateParking,
  voicemail: validateVoicemail,
  notification: validateNotification,
  object: validateObject,
  hangup: validateHangup,
  subscribe: validateSubscribe,
  fax: validateFax,
  registration: validateRegistration,
};

const CONTRACT_ORDER = Object.keys(SIMULATION_INPUTS);

/** The simulation kinds, in the contract's order (any others after them). */
function simulationKinds(core: Core): string[] {
  const rank = (k: string) => (CONTRACT_ORDER.includes(k) ? CONTRACT_ORDER.indexOf(k) : CONTRACT_ORDER.length);
  return Object.keys(core.simulations).sort((a, b) => rank(a) - rank(b));
}

/** Runs a simulation of `kind` on an account; one transaction, so its deliveries land together. */
export function simulate(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const kind = String(data.kind ?? '');
  // own keys only: `toString` or `constructor` are not kinds
  if (!Object.hasOwn(core.simulations, kind)) {
    throw errors.invalidField('kind', 'enum', 'Value not found in enumerated list of values', {
      target: simulationKinds(core),
      value: data.kind,
    });
  }
  const run = core.simulations[kind];
  return transaction(core.db, () => run(core, accountId, data));
}

/** `PUT /v2/accounts/{id}/simulations`: fire platform events (there is no switch here). */
export const simulationsModule: TelModule = {
  name: 'simulations',
  endpoints: ['simulations'],
  routes: [
    {
      method: 'PUT',
      path: 'accounts/:account_id/simulations',
      body: {
        oneOf: Object.entries(SIMULATION_INPUTS).map(([kind, v]) => ({
          ...v.schema,
          required: ['kind', ...((v.schema.required as string[] | undefined) ?? [])],
          properties: { kind: { const: kind }, ...(v.schema.properties as object) },
        })),
      },
      // Calls fired by many clients at once share one commit; each is answered once it is durable.
      // The answer has no revision, as Kazoo's answer to a write that saved no document (its md5
      // was 2% of a delivery's CPU: scripts/bench/delivery-cost.mjs --cpu-prof).
      handler: async (ctx, core) => {
        const data = dataObject(ctx);
        return { json: eventsJson(await groupCommit(core.db, () => simulate(core, ctx.params.account_id, data))), extras: WITHOUT_REVISION };
      },
    },
  ],
};

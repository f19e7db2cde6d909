import type { Core } from '../../core-type.js';
import type { TelModule } from '../types.js';
import { stmt } from '../../store/db.js';
import { countFailure } from '../../delivery/disabler.js';
import type { DeliveryRow } from '../../delivery/outbox.js';
import type { TryOutcome } from '../../delivery/send.js';
import { enqueueMatchingHooks, WEBHOOK_KIND } from './match.js';
import { webhookRoutes } from './routes.js';
import { simulateCall } from '../simulations/call.js';
import { simulateParking } from '../simulations/parking.js';

/** Webhook deliveries whose hook was deleted or turned off since they were queued are not sent. */
function sendableHooks(core: Core, rows: DeliveryRow[]): Set<number> {
  const ids = [...new Set(rows.map((r) => r.hook_id).filter((id): id is string => id !== null))];
  const enabled = new Set(
    (stmt(core.db, 'SELECT id FROM webhooks WHERE enabled = 1 AND id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as {
      id: string;
    }[]).map((r) => r.id),
  );
  return new Set(rows.filter((r) => r.hook_id !== null && enabled.has(r.hook_id)).map((r) => r.id));
}

function failureText(o: TryOutcome): string {
  if (o.status !== undefined) return `${o.status} ${o.reason ?? 'bad response code'}`;
  return o.clientError ?? o.reason ?? 'failed';
}

/** Webhooks: the API, the bus subscriber that queues their deliveries, and what becomes of them. */
export const webhooksModule: TelModule = {
  name: 'webhooks',
  endpoints: ['webhooks', 'configs'],
  routes: webhookRoutes,
  accountTables: ['webhooks', 'webhook_failures', 'account_configs'],
  simulations: { call: simulateCall, parking: simulateParking },
  deliveryKinds: {
    [WEBHOOK_KIND]: {
      sendable: sendableHooks,
      exhausted: (c, row, outcome, at) => {
        if (row.hook_id) countFailure(c, row.account_id, row.hook_id, failureText(outcome), at);
      },
    },
  },
  init(core) {
    core.bus.subscribe((event) => {
      enqueueMatchingHooks(core, event);
    });
  },
};

import type { Core } from '../../core-type.js';
import type { TelModule } from '../types.js';
import { withoutWaiting } from '../../store/db.js';
import type { DeliveryRow } from '../../delivery/outbox.js';
import type { TryOutcome } from '../../delivery/send.js';
import { deliverySettings, WEBHOOKS_CATEGORY } from '../../delivery/settings.js';
import { reportDbError } from '../../store/health.js';
import { accountConfigSchema } from './schema.js';
import { CLUSTER_CONFIG } from './cluster.js';
import { countFailure, pruneFailures } from './disabler.js';
import { enqueueMatchingHooks, WEBHOOK_KIND } from './match.js';
import { enabledHookIds } from './store.js';
import { webhookRoutes } from './routes.js';
import { simulateCall } from '../simulations/call.js';
import { simulateParking } from '../simulations/parking.js';
import { messageSimulation } from '../simulations/message.js';
import { simulateNotification } from '../simulations/notification.js';
import { simulateObject } from '../simulations/object.js';

/** Webhook deliveries whose hook was deleted or turned off since they were queued are not sent. */
function sendableHooks(core: Core, rows: DeliveryRow[]): Set<number> {
  // Stryker disable next-line ArrayDeclaration: an id no hook has is found enabled by no lookup
  const ids: string[] = [];
  // Stryker disable next-line ConditionalExpression: a null asked for is no hook either; the loop below checks each row's own id
  for (const r of rows) if (r.source_id !== null) ids.push(r.source_id);
  const enabled = enabledHookIds(core, ids);
  const sendable = new Set<number>();
  // Stryker disable next-line ConditionalExpression: a null id is in no set of enabled hooks
  for (const r of rows) if (r.source_id !== null && enabled.has(r.source_id)) sendable.add(r.id);
  return sendable;
}

/** How often failures too old to count towards auto-disable are forgotten. */
const PRUNE_INTERVAL_MS = 60_000;

/** Forgets counted failures no window can reach any more (attempt records are the sender's to prune). */
function pruneOldFailures(core: Core): void {
  try {
    const s = deliverySettings(core);
    withoutWaiting(core.db, () => pruneFailures(core, Math.max(s.attemptsRetentionSeconds * 1000, s.attemptFailureExpiryMs)));
  } catch (err) {
    reportDbError(core.db, 'pruning webhook failures failed', err);
  }
}

function failureText(o: TryOutcome): string {
  if (o.status !== undefined) return `${o.status} ${o.reason ?? 'bad response code'}`;
  return o.clientError ?? o.reason ?? 'failed';
}

/** Webhooks: the API, the bus subscriber that queues their deliveries, and what becomes of them. */
export const webhooksModule: TelModule = {
  name: 'webhooks',
  endpoints: ['webhooks'],
  routes: webhookRoutes,
  // an account's delivery settings (`/v2/accounts/{id}/configs/webhooks`): the keys of the system category
  accountConfigSchemas: { [WEBHOOKS_CATEGORY]: accountConfigSchema },
  configs: [CLUSTER_CONFIG],
  accountTables: ['webhooks', 'webhook_failures'],
  simulations: {
    call: simulateCall,
    sms: messageSimulation('sms'),
    mms: messageSimulation('mms'),
    parking: simulateParking,
    notification: simulateNotification,
    object: simulateObject,
  },
  deliveryKinds: {
    [WEBHOOK_KIND]: {
      sendable: sendableHooks,
      exhausted: (c, row, outcome, at) => {
        if (row.source_id) countFailure(c, row.account_id, row.source_id, failureText(outcome), at);
      },
    },
  },
  init(core) {
    core.bus.subscribe((event) => {
      enqueueMatchingHooks(core, event);
    });
  },
  start(core) {
    pruneOldFailures(core);
    const timer = setInterval(() => pruneOldFailures(core), PRUNE_INTERVAL_MS);
    timer.unref();
    return { stop: async () => clearInterval(timer) };
  },
};

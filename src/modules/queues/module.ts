import type { TelModule } from '../types.js';
import { simulateQueueCall } from '../simulations/queue-call.js';
import { queueRoutes } from './routes.js';
import { ACDC_CATEGORY, DEFAULT_NOTIFICATION_RETRIES } from './notify.js';

/**
 * Call-center queues and their notifications. The deliveries go through the durable outbox,
 * whose sender (the delivery module, in `tel serve`) sends every kind.
 */
export const queuesModule: TelModule = {
  name: 'queues',
  endpoints: ['queues'],
  routes: queueRoutes,
  simulations: { queue_call: simulateQueueCall },
  configs: [
    {
      name: ACDC_CATEGORY,
      description: "Call-center queues (Kazoo's ACDC): their notifications.",
      keys: {
        notification_retries: {
          type: 'integer',
          minimum: 0,
          default: DEFAULT_NOTIFICATION_RETRIES,
          description: 'Tries a queue notification (pickup, hangup) gets after a failed one; backoff and timeout come from `webhooks`.',
        },
      },
    },
  ],
};

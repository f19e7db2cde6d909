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
  configDefaults: { [ACDC_CATEGORY]: { notification_retries: DEFAULT_NOTIFICATION_RETRIES } },
};

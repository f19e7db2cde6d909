import type { TelModule } from '../types.js';
import { simulateQueueCall } from '../simulations/queue-call.js';
import { queueRoutes } from './routes.js';

/**
 * Call-center queues and their notifications. The deliveries go through the durable outbox,
 * whose sender (the delivery module, in `tel serve`) sends every kind.
 */
export const queuesModule: TelModule = {
  name: 'queues',
  endpoints: ['queues'],
  routes: queueRoutes,
  simulations: { queue_call: simulateQueueCall },
};

import type { TelModule } from '../types.js';
import { SIMULATIONS } from '../simulations/registry.js';
import { simulateQueueCall } from '../simulations/queue-call.js';
import { queueRoutes } from './routes.js';

SIMULATIONS.queue_call = simulateQueueCall;

/**
 * Call-center queues and their notifications. The deliveries go through the durable outbox,
 * whose sender (started by the webhooks module in `tel serve`) sends every kind.
 */
export const queuesModule: TelModule = {
  name: 'queues',
  endpoints: ['queues'],
  routes: queueRoutes,
};

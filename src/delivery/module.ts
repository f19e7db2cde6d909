import type { TelModule } from '../modules/types.js';
import { startSender } from './sender.js';

/**
 * The durable outbox: its tables belong to accounts, and in `tel serve` its one sender sends
 * every kind of delivery (webhooks, queue notifications) that modules enqueue.
 */
export const deliveryModule: TelModule = {
  name: 'delivery',
  accountTables: ['outbox', 'delivery_attempts'],
  start: (core) => startSender(core),
};

import type { TelModule } from '../types.js';
import { startSender } from '../../delivery/sender.js';
import { WEBHOOKS_CONFIG } from '../../delivery/settings.js';

/**
 * The durable outbox: its tables belong to accounts, and in `tel serve` its one sender sends
 * every kind of delivery (webhooks, queue notifications) that modules enqueue.
 */
export const deliveryModule: TelModule = {
  name: 'delivery',
  accountTables: ['outbox', 'delivery_attempts'],
  configs: [WEBHOOKS_CONFIG],
  start: (core) => startSender(core),
};

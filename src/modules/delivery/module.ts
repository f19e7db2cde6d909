import type { TelModule } from '../types.js';
import { startSender } from '../../delivery/sender.js';
import { defaultSettingsDoc, DENY_PRIVATE_NETWORKS, WEBHOOKS_CATEGORY } from '../../delivery/settings.js';

/**
 * The durable outbox: its tables belong to accounts, and in `tel serve` its one sender sends
 * every kind of delivery (webhooks, queue notifications) that modules enqueue.
 */
export const deliveryModule: TelModule = {
  name: 'delivery',
  accountTables: ['outbox', 'delivery_attempts'],
  configDefaults: { [WEBHOOKS_CATEGORY]: { ...defaultSettingsDoc(), [DENY_PRIVATE_NETWORKS]: false } },
  start: (core) => startSender(core),
};

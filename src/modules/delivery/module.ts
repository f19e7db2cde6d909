import type { TelModule } from '../types.js';
import type { ConfigCategory } from '../config/categories.js';
import { startSender } from '../../delivery/sender.js';
import { DENY_PRIVATE_NETWORKS, SETTINGS, WEBHOOKS_CATEGORY } from '../../delivery/settings.js';

/** The `webhooks` configuration category, declared from the delivery engine's settings. */
const WEBHOOKS_CONFIG: ConfigCategory = {
  name: WEBHOOKS_CATEGORY,
  description:
    'How deliveries are sent, retried, counted and kept: webhooks, and queue notifications (their backoff and timeout). ' +
    "An account overrides any of these keys at `/v2/accounts/{id}/configs/webhooks`, and a reseller's settings there apply to the accounts below it.",
  keys: {
    ...Object.fromEntries(
      Object.values(SETTINGS).map((s) => [
        s.key,
        { type: 'integer', minimum: s.min, ...(s.max === undefined ? {} : { maximum: s.max }), default: s.default, description: s.about },
      ]),
    ),
    [DENY_PRIVATE_NETWORKS]: {
      type: 'boolean',
      default: false,
      systemOnly: true,
      description:
        'When true, deliveries connect to public addresses only: loopback, private, link-local and other non-public addresses are refused, checked against the address connected to. System-wide: an account\'s `configs/webhooks` refuses it (400).',
    },
  },
};

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

import type { TelModule } from '../types.js';
import { simulateVoicemail } from '../simulations/voicemail.js';
import { pushRoutes } from './routes.js';
import { dropDeviceSubscriptions } from './service.js';

/** Push notification subscriptions, the push outbox and the voicemail simulation that fills it. */
export const pushModule: TelModule = {
  name: 'push',
  endpoints: ['push_notification_subscriptions', 'push_notifications'],
  routes: pushRoutes,
  accountTables: ['push_subscriptions', 'push_notifications'],
  simulations: { voicemail: simulateVoicemail },
  init(core) {
    // A subscription names a platform device; it goes when the device goes.
    core.bus.subscribe((event) => {
      const p = event.payload;
      if (event.type === 'object' && p.type === 'device' && p.action === 'doc_deleted') {
        dropDeviceSubscriptions(core, event.accountId, String(p.id));
      }
    });
  },
};

import type { TelModule } from '../types.js';
import { messageRoutesOf } from './routes.js';

/** Text and multimedia messages, as Kazoo's `sms` and `mms` modules serve them (sent through the API, or simulated arriving). */
export const messagesModule: TelModule = {
  name: 'messages',
  endpoints: ['sms', 'mms'],
  routes: [...messageRoutesOf.sms, ...messageRoutesOf.mms],
};

import type { TelModule } from '../types.js';
import { voicemailRoutes } from './routes.js';
import { moveBoxToDeleted } from './store.js';

/** Voicemail messages: what simulated voicemail and clients leave in boxes, listed and changed as Kazoo's `cb_vmboxes` does. */
export const voicemailModule: TelModule = {
  name: 'voicemail',
  routes: voicemailRoutes,
  accountTables: ['vm_messages'],
  init(core) {
    // A deleted box's messages go to the deleted folder, as Kazoo's cb_vmboxes:delete/2 moves them.
    core.bus.subscribe((event) => {
      const p = event.payload;
      if (event.type === 'object' && p.type === 'vmbox' && p.action === 'doc_deleted') moveBoxToDeleted(core, event.accountId, String(p.id));
    });
  },
};

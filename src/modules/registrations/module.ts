import type { TelModule } from '../types.js';
import { choreEvery } from '../../store/chores.js';
import { simulateRegistration } from '../simulations/registration.js';
import { registrationRoutes } from './routes.js';
import { sweepLapsed } from './service.js';
import { removeDeviceRegistrations } from './store.js';

/** How often a server looks for registrations that lapsed (Kazoo's registrar expires them on a timer too). */
const SWEEP_EVERY_MS = 5_000;

/**
 * SIP registrations, made by the `registration` simulation (there is no switch here): listed as
 * Kazoo's `cb_registrations` answers them, flushed, counted, and told by `devices/status`. A
 * server sweeps the lapsed ones away, notifying each `deregister`.
 */
export const registrationsModule: TelModule = {
  name: 'registrations',
  endpoints: ['registrations'],
  routes: registrationRoutes,
  accountTables: ['registrations'],
  simulations: { registration: simulateRegistration },
  init(core) {
    // a deleted device's phone can register no more: its registrations go with it
    core.bus.subscribe((event) => {
      const p = event.payload;
      if (event.type === 'object' && p.type === 'device' && p.action === 'doc_deleted') removeDeviceRegistrations(core, event.accountId, String(p.id));
    });
  },
  // a batch a turn: a backlog (a server that was down) drains over the next turns
  start: (core) => choreEvery(core.db, SWEEP_EVERY_MS, 'sweeping lapsed registrations failed', () => sweepLapsed(core)),
};

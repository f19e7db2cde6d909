import type { TelModule } from '../types.js';
import { simulateFax } from '../simulations/fax.js';
import { faxRoutes } from './routes.js';

/** Faxes: sent (jobs, the outbox), received (the inbox), refused by e-mail (the SMTP log), as Kazoo's `faxes` module serves them. */
export const faxesModule: TelModule = { name: 'faxes', endpoints: ['faxes'], routes: faxRoutes, simulations: { fax: simulateFax } };

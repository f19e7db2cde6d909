import type { TelModule } from '../types.js';
import { recordingRoutes } from './routes.js';

/** Call recordings: what a simulated call with `record: true` leaves, as Kazoo's `recordings` module serves them. */
export const recordingsModule: TelModule = { name: 'recordings', endpoints: ['recordings'], routes: recordingRoutes };

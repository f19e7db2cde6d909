import type { TelModule } from '../types.js';
import { userRoutes } from './routes.js';

/** An account's users: documents, passwords, vCards and photos. */
export const usersModule: TelModule = {
  name: 'users',
  endpoints: ['users'],
  routes: userRoutes,
};

import { documentService, flaggedRow } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
import type { TelModule } from '../types.js';
import { menuSchema } from './schema.js';

/** Menus: the IVRs a callflow's `menu` action plays. */
export const menus = documentService({
  kind: 'menu',
  endpoint: 'menus',
  summary: ['name', 'flags'],
  row: flaggedRow(['name']),
  schema: menuSchema,
});

/** `/v2/accounts/{id}/menus`: Kazoo's `cb_menus`. */
export const menusModule: TelModule = { name: 'menus', endpoints: ['menus'], routes: documentRoutes(menus) };

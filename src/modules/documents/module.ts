import type { TelModule } from '../types.js';
import { documentRoutes } from './routes.js';
import { DOCUMENT_KINDS } from './kinds.js';

/** Plain CRUD for devices, callflows, vmboxes, faxboxes and media (so `object` hooks fire). */
export const documentsModule: TelModule = {
  name: 'documents',
  endpoints: DOCUMENT_KINDS.map((k) => k.kind.endpoint),
  routes: DOCUMENT_KINDS.flatMap(documentRoutes),
  // documents' files (a user's photo)
  accountTables: ['doc_attachments'],
};

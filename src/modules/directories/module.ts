import type { Core } from '../../core-type.js';
import type { JsonSchema } from '../../schema/registry.js';
import { stmt } from '../../store/db.js';
import type { RouteDef } from '../../http/router.js';
import { documentRoutes, documentService, flaggedRow } from '../documents/crud.js';
import { publicDoc } from '../documents/store.js';
import type { TelModule } from '../types.js';
import { directorySchema } from './schema.js';

/** Directories: who a caller may reach by dialling a name. */
export const directories = documentService({
  kind: 'directory',
  endpoint: 'directories',
  summary: ['name', 'flags'],
  row: flaggedRow(['name']),
  schema: directorySchema,
});

/** A user listed in a directory, as Kazoo answers it: the user and the callflow that reaches them. */
export interface DirectoryEntry {
  user_id: string;
  callflow_id?: string;
}

/**
 * The users listed in a directory: those whose `directories` map names it (`{directory_id:
 * callflow_id}`), by user id, as Kazoo's `directories/users_listing` view answers them. One search
 * of `doc_keys` (migration 4000).
 */
export function directoryEntries(core: Core, accountId: string, directoryId: string): DirectoryEntry[] {
  const rows = stmt(
    core.db,
    `SELECT k.doc_id AS user_id, t.value AS callflow_id
       FROM doc_keys k JOIN docs d ON d.id = k.doc_id, json_each(d.doc, '$.directories') t
      WHERE k.account_id = ? AND k.field = 'directories' AND k.value = ? AND t.key = k.value
      ORDER BY k.doc_id`,
  ).all(accountId, directoryId) as { user_id: string; callflow_id: unknown }[];
  return rows.map((r) => (typeof r.callflow_id === 'string' && r.callflow_id !== '' ? { user_id: r.user_id, callflow_id: r.callflow_id } : { user_id: r.user_id }));
}

/** A directory as its GET answers it: the document, its `users` the entries of the users who list it. */
export function readDirectory(core: Core, accountId: string, id: string): { doc: Record<string, unknown>; rev: string } {
  const d = directories.get(core, accountId, id);
  return { doc: { ...publicDoc(d), users: directoryEntries(core, accountId, d.id) }, rev: d.rev };
}

const ENTRY: JsonSchema = {
  type: 'object',
  required: ['user_id'],
  properties: { user_id: { type: 'string' }, callflow_id: { type: 'string', description: 'the callflow that reaches the user from the directory' } },
};

/** The GET of one directory answers its users' entries in place of the document's `users`. */
const readRoute: RouteDef = {
  method: 'GET',
  path: 'accounts/:account_id/directories/:doc_id',
  response: {
    type: 'object',
    required: ['id'],
    properties: { ...(directorySchema.properties as Record<string, JsonSchema>), id: { type: 'string' }, users: { type: 'array', items: ENTRY } },
  },
  handler: (ctx, core) => {
    const d = readDirectory(core, ctx.params.account_id, ctx.params.doc_id);
    return { data: d.doc, extras: { revision: d.rev } };
  },
};

/** `/v2/accounts/{id}/directories`: Kazoo's `cb_directories`. */
export const directoriesModule: TelModule = {
  name: 'directories',
  endpoints: ['directories'],
  routes: documentRoutes(directories).map((r) => (r.method === 'GET' && r.path === readRoute.path ? readRoute : r)),
};

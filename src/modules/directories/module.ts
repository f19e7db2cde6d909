import type { Core } from '../../core-type.js';
import type { JsonSchema } from '../../schema/registry.js';
import { everyPage, readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';
import { jsonArrayPieces } from '../../util/json.js';
import type { RouteDef } from '../../http/router.js';
import { documentService, flaggedRow } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
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
 * A page of the users listed in a directory: those whose `directories` map names it
 * (`{directory_id: callflow_id}`), by user id, as Kazoo's `directories/users_listing` view answers
 * them; a range of `doc_keys` (migration 4000).
 */
export function directoryEntriesPage(core: Core, accountId: string, directoryId: string, q: PageQuery<CompoundKey>): Page<DirectoryEntry, CompoundKey> {
  return readKeysetPage<{ user_id: string; callflow_id: unknown }, DirectoryEntry>(
    core.db,
    {
      select: `SELECT k.doc_id AS user_id, t.value AS callflow_id
                 FROM doc_keys k JOIN docs d ON d.id = k.doc_id, json_each(d.doc, '$.directories') t`,
      where: ['k.account_id = ?', "k.field = 'directories'", 'k.value = ?', 't.key = k.value'],
      args: [accountId, directoryId],
      order: ['k.doc_id'],
      keyOf: (r) => [r.user_id],
      item: (r) => (typeof r.callflow_id === 'string' && r.callflow_id !== '' ? { user_id: r.user_id, callflow_id: r.callflow_id } : { user_id: r.user_id }),
    },
    q,
  );
}

/**
 * A directory as its GET answers it, in pieces of JSON text: the document, its `users` the
 * entries of the users who list it, read a chunk at a time (a directory of everyone in a large
 * account is thousands of them). A 404 for an unknown directory before any piece.
 */
export function readDirectory(core: Core, accountId: string, id: string): { pieces: Iterable<string>; rev: string } {
  const d = directories.get(core, accountId, id);
  const { users: _own, ...fields } = publicDoc(d);
  const head = JSON.stringify(fields);
  const entries = everyPage((q: PageQuery<CompoundKey>) => directoryEntriesPage(core, accountId, d.id, q));
  const pieces = function* () {
    yield `${head.slice(0, -1)}${head === '{}' ? '' : ','}"users":`;
    yield* jsonArrayPieces(entries, (e) => e);
    yield '}';
  };
  return { pieces: pieces(), rev: d.rev };
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
    return { stream: { pieces: d.pieces }, extras: { revision: d.rev } };
  },
};

/** `/v2/accounts/{id}/directories`: Kazoo's `cb_directories`. */
export const directoriesModule: TelModule = {
  name: 'directories',
  endpoints: ['directories'],
  routes: documentRoutes(directories).map((r) => (r.method === 'GET' && r.path === readRoute.path ? readRoute : r)),
};

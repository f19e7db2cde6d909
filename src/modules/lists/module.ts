import { writeRoutes, type RouteDef } from '../../http/router.js';
import { dataObject, ifMatchOf } from '../../http/request.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { deletedAnswer, documentAnswer } from '../../http/answers.js';
import type { JsonSchema } from '../../schema/registry.js';
import { transaction } from '../../store/db.js';
import { documentRoutes } from '../documents/routes.js';
import { fileFromUpload, IMAGE_TYPES, putAttachment } from '../documents/files.js';
import { filterDoc, publicDoc } from '../documents/store.js';
import { vcardType } from '../users/routes.js';
import type { TelModule } from '../types.js';
import { listEntrySchema } from './schema.js';
import {
  clearEntries,
  createEntry,
  entriesPage,
  entryRow,
  entryVcard,
  ENTRY_PHOTO,
  getEntry,
  lists,
  removeEntry,
  removeList,
  updateEntry,
} from './service.js';

const ENTRIES = 'accounts/:account_id/lists/:list_id/entries';
const ENTRY = `${ENTRIES}/:entry_id`;

/** The rows of the entries listing: Kazoo's view rows, `{id, key, value}`. */
const ENTRY_ROWS: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string' }, key: { type: 'string', description: 'the list' }, value: { type: 'object' } },
  },
};

const entryAnswer = documentAnswer(listEntrySchema);

const entryRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: ENTRIES,
    query: LISTING_QUERY,
    response: ENTRY_ROWS,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => entriesPage(core, ctx.params.account_id, ctx.params.list_id, q, desc), entryRow, CREATED_KEY, { whole: filterDoc });
    },
  },
  {
    method: 'PUT',
    path: ENTRIES,
    body: listEntrySchema,
    response: entryAnswer,
    handler: (ctx, core) => ({ data: publicDoc(createEntry(core, ctx.params.account_id, ctx.params.list_id, dataObject(ctx))) }),
  },
  {
    method: 'DELETE',
    path: ENTRIES,
    response: ENTRY_ROWS,
    handler: (ctx, core) => ({ data: clearEntries(core, ctx.params.account_id, ctx.params.list_id) }),
  },
  {
    method: 'GET',
    path: ENTRY,
    response: entryAnswer,
    handler: (ctx, core) => {
      const d = getEntry(core, ctx.params.account_id, ctx.params.list_id, ctx.params.entry_id);
      return { data: publicDoc(d), extras: { revision: d.rev } };
    },
  },
  ...writeRoutes(
    ENTRY,
    (ctx, core, mode) => ({
      data: publicDoc(updateEntry(core, ctx.params.account_id, ctx.params.list_id, ctx.params.entry_id, dataObject(ctx), mode, ifMatchOf(ctx))),
    }),
    listEntrySchema,
    entryAnswer,
  ),
  {
    method: 'DELETE',
    path: ENTRY,
    response: deletedAnswer(listEntrySchema),
    handler: (ctx, core) => ({
      data: { ...publicDoc(removeEntry(core, ctx.params.account_id, ctx.params.list_id, ctx.params.entry_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
    }),
  },
  {
    method: 'GET',
    path: `${ENTRY}/vcard`,
    raw: 'text/vcard',
    handler: (ctx, core) => {
      const card = entryVcard(core, ctx.params.account_id, ctx.params.list_id, ctx.params.entry_id);
      return { file: Buffer.from(card, 'utf8'), headers: { 'Content-Type': `${vcardType(ctx)}; charset=utf-8`, 'Content-Disposition': `attachment; filename=${ctx.params.entry_id}.vcf` } };
    },
  },
  {
    method: 'POST',
    path: `${ENTRY}/photo`,
    upload: true,
    errors: [415],
    handler: (ctx, core) => {
      const entry = getEntry(core, ctx.params.account_id, ctx.params.list_id, ctx.params.entry_id);
      const file = fileFromUpload(ctx.upload, [...IMAGE_TYPES, 'image/webp']);
      transaction(core.db, () => putAttachment(core, ctx.params.account_id, entry.id, ENTRY_PHOTO, file));
      return { data: {} };
    },
  },
];

/** A list's DELETE takes its entries with it. */
const listRoutes = documentRoutes(lists).map(
  (r): RouteDef =>
    r.method === 'DELETE'
      ? {
          ...r,
          handler: (ctx, core) => ({
            data: { ...publicDoc(removeList(core, ctx.params.account_id, ctx.params.doc_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
          }),
        }
      : r,
);

/** `/v2/accounts/{id}/lists` and their entries: Kazoo's `cb_lists`. */
export const listsModule: TelModule = { name: 'lists', endpoints: ['lists'], routes: [...listRoutes, ...entryRoutes] };

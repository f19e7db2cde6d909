import { writeRoutes, type Reply, type RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { checkUserWrite, createUser, deleteUser, getUser, hashPasswordOf, updateUser, userJson, usersPage } from './service.js';
import type { StoredDoc } from '../documents/store.js';
import { userSchema } from './schema.js';
import { deleteAttachments, fileFromUpload, findAttachment, IMAGE_TYPES, putAttachment } from '../documents/files.js';
import { getAccount } from '../accounts/service.js';
import { errors } from '../../errors.js';
import { transaction } from '../../store/db.js';
import { userVcard } from './vcard.js';

/** A user's photo: Kazoo's attachment name. */
const PHOTO = 'photo';

/** The user of the path, once the caller may change it (themself, or an admin of the account). */
function photoOwner(ctx: RequestContext, core: Core): string {
  const userId = getUser(core, ctx.params.account_id, ctx.params.user_id).id;
  checkUserWrite(core, authOf(ctx), ctx.params.account_id, { op: 'update', userId, input: {} });
  return userId;
}

/** Whether the client asked for base64 (Kazoo serves a photo as application/base64 or octet-stream). */
function wantsBase64(ctx: RequestContext): boolean {
  return /application\/(x-)?base64/i.test(String(ctx.headers.accept ?? ''));
}

/** The vCard media type the client asked for: Kazoo's text/x-vcard or text/directory, else RFC 6350's text/vcard. */
export function vcardType(ctx: RequestContext): string {
  const accept = String(ctx.headers.accept ?? '').toLowerCase();
  return accept.includes('text/x-vcard') ? 'text/x-vcard' : accept.includes('text/directory') ? 'text/directory' : 'text/vcard';
}

/** The request's user document, once the caller may write what it asks for. */
function userInput(ctx: RequestContext, core: Core): Record<string, unknown> {
  const input = dataObject(ctx);
  const userId = ctx.params.user_id;
  checkUserWrite(core, authOf(ctx), ctx.params.account_id, userId ? { op: 'update', userId, input } : { op: 'create' });
  return input;
}

/** The fields of a user a listing shows. */
const SUMMARY = ['username', 'first_name', 'last_name', 'email', 'priv_level', 'enabled'] as const;

/** A user as the listing shows it: its id and the summary fields it has. */
function userSummary(u: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = { id: u.id };
  for (const f of SUMMARY) if (u.doc[f] !== undefined) row[f] = u.doc[f];
  return row;
}

const answer = documentAnswer(userSchema);

/** `/v2/accounts/{id}/users…`. */
export const userRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/users',
    query: LISTING_QUERY,
    response: listAnswer(userSchema, SUMMARY),
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => usersPage(core, ctx.params.account_id, q, desc), userSummary, CREATED_KEY);
    },
  },
  {
    method: 'PUT',
    path: 'accounts/:account_id/users',
    body: userSchema,
    response: answer,
    handler: async (ctx, core) => {
      const input = userInput(ctx, core);
      const password = await hashPasswordOf(core, ctx.params.account_id, input);
      return { data: userJson(createUser(core, ctx.params.account_id, input, undefined, password)) };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/users/:user_id',
    response: answer,
    handler: (ctx, core) => {
      const u = getUser(core, ctx.params.account_id, ctx.params.user_id);
      return { data: userJson(u), extras: { revision: u.rev } };
    },
  },
  ...writeRoutes('accounts/:account_id/users/:user_id', async (ctx, core, mode) => {
    const { account_id: accountId, user_id: userId } = ctx.params;
    const input = userInput(ctx, core);
    const password = await hashPasswordOf(core, accountId, input, { userId, mode });
    return { data: userJson(updateUser(core, accountId, userId, input, mode, ifMatchOf(ctx), password)) };
  }, userSchema, answer),
  {
    method: 'DELETE',
    path: 'accounts/:account_id/users/:user_id',
    response: deletedAnswer(userSchema),
    handler: (ctx, core) => {
      checkUserWrite(core, authOf(ctx), ctx.params.account_id, { op: 'delete', userId: ctx.params.user_id });
      return {
        data: { ...userJson(deleteUser(core, ctx.params.account_id, ctx.params.user_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
      };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/users/:user_id/vcard',
    raw: 'text/vcard',
    handler: (ctx, core) => {
      const u = getUser(core, ctx.params.account_id, ctx.params.user_id);
      const org = getAccount(core, ctx.params.account_id).doc.org;
      const card = userVcard(u.doc, { org: typeof org === 'string' ? org : undefined, photo: findAttachment(core, u.id, PHOTO) });
      return { file: Buffer.from(card, 'utf8'), headers: { 'Content-Type': `${vcardType(ctx)}; charset=utf-8`, 'Content-Disposition': `attachment; filename=${u.id}.vcf` } };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/users/:user_id/photo',
    raw: 'image/*',
    handler: (ctx, core): Reply => {
      const u = getUser(core, ctx.params.account_id, ctx.params.user_id);
      const photo = findAttachment(core, u.id, PHOTO);
      if (!photo) throw errors.badIdentifier(PHOTO);
      if (wantsBase64(ctx)) return { file: Buffer.from(photo.bytes.toString('base64')), headers: { 'Content-Type': 'application/base64' } };
      return { file: photo.bytes, headers: { 'Content-Type': photo.contentType, 'X-Content-Type-Options': 'nosniff' } };
    },
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/users/:user_id/photo',
    upload: true,
    errors: [415],
    handler: (ctx, core) => {
      const userId = photoOwner(ctx, core);
      // Kazoo takes the photo as sent (octet-stream included); an image is all tel stores
      const file = fileFromUpload(ctx.upload, [...IMAGE_TYPES, 'image/webp']);
      transaction(core.db, () => putAttachment(core, ctx.params.account_id, userId, PHOTO, file));
      return { data: {} };
    },
  },
  {
    method: 'DELETE',
    path: 'accounts/:account_id/users/:user_id/photo',
    handler: (ctx, core) => {
      deleteAttachments(core, photoOwner(ctx, core), PHOTO);
      return { data: {} };
    },
  },
];

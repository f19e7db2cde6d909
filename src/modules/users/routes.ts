import { writeRoutes, type Reply, type RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import type { RequestContext } from '../../http/context.js';
import type { Core } from '../../core-type.js';
import { checkUserWrite, createUser, deleteUser, getUser, hashPasswordOf, updateUser, userJson, usersPage } from './service.js';
import { filterDoc, type StoredDoc } from '../documents/store.js';
import { userSchema } from './schema.js';
import { deleteAttachments, fileFromUpload, findAttachment, IMAGE_TYPES, putAttachment } from '../documents/files.js';
import { getAccount } from '../accounts/service.js';
import { errors } from '../../errors.js';
import { transaction } from '../../store/db.js';
import { userVcard } from './vcard.js';
import { tokenKey } from '../auth/service.js';

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

/** The fields of a user a listing shows (Kazoo's `users/crossbar_listing` view). */
const SUMMARY = ['username', 'email', 'first_name', 'last_name', 'priv_level', 'feature_level', 'presence_id', 'timezone', 'call_recording', 'service', 'flags'];

/** A row's `features`: the user's own and those its settings turn on, as the view works them out. */
const FEATURES = { type: 'array', items: { type: 'string' }, description: "the user's features and those its settings turn on (`call_forward`, `vm_to_email`, …)" };

const ANSWER_ROW = listAnswer(userSchema, SUMMARY, { features: FEATURES });

type Doc = Record<string, unknown>;
const obj = (v: unknown): Doc => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {});

/** A user's `features` as Kazoo's view lists them. */
function userFeatures(doc: Doc): unknown[] {
  const features: unknown[] = Array.isArray(doc.features) ? [...doc.features] : [];
  for (const [name, setting] of Object.entries(obj(doc.smartpbx))) if (obj(setting).enabled) features.push(name);
  const forward = obj(doc.call_forward);
  if (obj(doc.hotdesk).enabled) features.push('hotdesk');
  if (forward.enabled) features.push('call_forward');
  if (forward.failover && !forward.enabled) features.push('call_forward_failover');
  if (obj(obj(doc.caller_id).external).number) features.push('caller_id');
  if (doc.vm_to_email_enabled) features.push('vm_to_email');
  if (obj(doc.music_on_hold).media_id) features.push('music_on_hold');
  if (obj(doc.do_not_disturb).enabled) features.push('do_not_disturb');
  if (obj(doc.ctu).enabled) features.push('ctu');
  if (obj(doc.desktop).enabled) features.push('desktop');
  return features;
}

/** A user as the listing shows it: Kazoo's `users/crossbar_listing` row (its `features` worked out, `flags` always). */
function userSummary(u: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = { id: u.id, features: userFeatures(u.doc) };
  for (const f of SUMMARY) if (u.doc[f] !== undefined) row[f] = u.doc[f];
  row.flags = u.doc.flags ? u.doc.flags : [];
  return row;
}

const answer = documentAnswer(userSchema);

/** `/v2/accounts/{id}/users…`. */
export const userRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/users',
    query: LISTING_QUERY,
    response: ANSWER_ROW,
    handler: (ctx, core) => {
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => usersPage(core, ctx.params.account_id, q, desc), userSummary, CREATED_KEY, { whole: (u) => filterDoc(u, userJson(u)) });
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
    // a user changing their own password keeps the session they changed it from
    const auth = authOf(ctx);
    const own = auth.ownerId === userId && auth.accountId === accountId ? { ownTokenKey: tokenKey(auth.token) } : {};
    return { data: userJson(updateUser(core, accountId, userId, input, mode, ifMatchOf(ctx), { ...password, ...own })) };
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
      // crossbar_doc:delete_attachment/3 answers an empty document, deleted
      return { data: { _read_only: { deleted: true } } };
    },
  },
];

import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { ref } from '../../schema/registry.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { transaction } from '../../store/db.js';
import { getAccount, setAccountField } from '../accounts/service.js';
import type { TelModule } from '../types.js';
import { commentSchema, commentsSchema } from './schema.js';

const validateComments = compileValidator(commentsSchema);
const validateComment = compileValidator(commentSchema);

type Comment = Record<string, unknown>;

/** An account's comments (kept on its document, as Kazoo keeps them), oldest first. */
export function listComments(core: Core, accountId: string): Comment[] {
  const c = getAccount(core, accountId).doc.comments;
  return Array.isArray(c) ? (c as Comment[]) : [];
}

/** Comments by their `timestamp`, oldest first (Kazoo's order; equal ones keep theirs). */
function sorted(comments: Comment[]): Comment[] {
  const ts = (c: Comment) => (typeof c.timestamp === 'number' ? c.timestamp : 0);
  return [...comments].sort((a, b) => ts(a) - ts(b));
}

function store(core: Core, accountId: string, comments: Comment[]): Comment[] {
  setAccountField(core, accountId, 'comments', comments);
  return comments;
}

/** The comment of a position (`0` is the oldest): Kazoo's ids are positions. A 404 past the last. */
function position(comments: Comment[], id: string): number {
  const n = /^\d{1,9}$/.test(id) ? Number(id) : NaN;
  if (!(n < comments.length)) throw errors.badIdentifier(id);
  return n;
}

/** Adds comments (`{comments: […]}`) to an account's; answers them all. */
export function addComments(core: Core, accountId: string, input: Record<string, unknown>): Comment[] {
  const data = { ...input };
  throwIfErrors(validateComments.check(data));
  return transaction(core.db, () => store(core, accountId, sorted([...listComments(core, accountId), ...((data.comments as Comment[]) ?? [])])));
}

/** One comment of an account, by position. */
export function getComment(core: Core, accountId: string, id: string): Comment {
  const comments = listComments(core, accountId);
  return comments[position(comments, id)];
}

/** Replaces one comment; answers the comment now at that position (the list is kept in order). */
export function replaceComment(core: Core, accountId: string, id: string, input: Record<string, unknown>): Comment {
  const comment = { ...input };
  throwIfErrors(validateComment.check(comment));
  return transaction(core.db, () => {
    const comments = listComments(core, accountId);
    const n = position(comments, id);
    return store(core, accountId, sorted(comments.map((c, i) => (i === n ? comment : c))))[n];
  });
}

/** Removes one comment (by position), or all of them; answers those left. */
export function removeComments(core: Core, accountId: string, id?: string): Comment[] {
  return transaction(core.db, () => {
    const comments = listComments(core, accountId);
    if (id === undefined) return store(core, accountId, []);
    const n = position(comments, id);
    return store(core, accountId, comments.filter((_, i) => i !== n));
  });
}

const BASE = 'accounts/:account_id/comments';
const ONE = `${BASE}/:comment_id`;
const ALL = { type: 'object', required: ['comments'], properties: { comments: { type: 'array', items: ref(commentSchema) } } };
const all = (comments: Comment[]) => ({ data: { comments } });

const routes: RouteDef[] = [
  { method: 'GET', path: BASE, response: ALL, handler: (ctx, core) => all(listComments(core, ctx.params.account_id)) },
  { method: 'PUT', path: BASE, body: commentsSchema, response: ALL, handler: (ctx, core) => all(addComments(core, ctx.params.account_id, dataObject(ctx))) },
  { method: 'DELETE', path: BASE, response: ALL, handler: (ctx, core) => all(removeComments(core, ctx.params.account_id)) },
  { method: 'GET', path: ONE, response: ref(commentSchema), handler: (ctx, core) => ({ data: getComment(core, ctx.params.account_id, ctx.params.comment_id) }) },
  {
    method: 'POST',
    path: ONE,
    body: commentSchema,
    response: ref(commentSchema),
    handler: (ctx, core) => ({ data: replaceComment(core, ctx.params.account_id, ctx.params.comment_id, dataObject(ctx)) }),
  },
  { method: 'DELETE', path: ONE, response: ALL, handler: (ctx, core) => all(removeComments(core, ctx.params.account_id, ctx.params.comment_id)) },
];

/** `/v2/accounts/{id}/comments`: Kazoo's `cb_comments` on an account. */
export const commentsModule: TelModule = { name: 'comments', endpoints: ['comments'], routes };

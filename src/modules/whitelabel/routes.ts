import type { Reply, RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { FILE_KINDS, fileName, imageOf, type FileKind } from './files.js';
import { whitelabelSchema } from './schema.js';
import { deletedAnswer, documentAnswer } from '../../http/answers.js';
import {
  checkWhitelabelWrite,
  createWhitelabel,
  deleteWhitelabel,
  getWhitelabel,
  saveWhitelabelFile,
  updateWhitelabel,
  whitelabelByDomain,
  whitelabelFile,
  whitelabelJson,
  type WhitelabelFile,
} from './service.js';

const ACCOUNT = 'accounts/:account_id/whitelabel';

/** A logo or icon answered as the file itself, as Kazoo streams attachments. */
function fileReply(f: WhitelabelFile): Reply {
  return {
    file: f.bytes,
    headers: { 'Content-Type': f.contentType, 'Content-Disposition': `attachment; filename=${f.name}`, 'X-Content-Type-Options': 'nosniff' },
  };
}

/** The account's routes for one kind of file: read it, upload it (the body an image, or base64). */
function fileRoutes(kind: FileKind): RouteDef[] {
  return [
    { method: 'GET', path: `${ACCOUNT}/${kind}`, raw: 'image/*', handler: (ctx, core) => fileReply(whitelabelFile(core, getWhitelabel(core, ctx.params.account_id).accountId, kind)) },
    {
      method: 'POST',
      path: `${ACCOUNT}/${kind}`,
      upload: true,
      errors: [415],
      handler: (ctx, core) => {
        checkWhitelabelWrite(core, authOf(ctx));
        const accountId = getWhitelabel(core, ctx.params.account_id).accountId;
        const image = imageOf(ctx.upload, kind);
        const saved = saveWhitelabelFile(core, accountId, kind, { ...image, name: fileName(kind, ctx.query.get('filename'), image.contentType) });
        return { data: whitelabelJson(saved) };
      },
    },
    // no token: the login page shows the logo and icon of the domain it is served on
    { method: 'GET', path: `whitelabel/:domain/${kind}`, auth: 'none', raw: 'image/*', handler: (ctx, core) => fileReply(whitelabelFile(core, whitelabelByDomain(core, ctx.params.domain).accountId, kind)) },
  ];
}

const answer = documentAnswer(whitelabelSchema);

/** `/v2/accounts/{id}/whitelabel…` and the token-free `/v2/whitelabel/{domain}…` Kazoo's web UI reads at its login page. */
export const whitelabelRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: ACCOUNT,
    response: answer,
    handler: (ctx, core) => {
      const w = getWhitelabel(core, ctx.params.account_id);
      return { data: whitelabelJson(w), extras: { revision: w.rev } };
    },
  },
  {
    method: 'PUT',
    path: ACCOUNT,
    body: whitelabelSchema,
    response: answer,
    errors: [409],
    handler: (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: whitelabelJson(createWhitelabel(core, ctx.params.account_id, dataObject(ctx))) };
    },
  },
  {
    method: 'POST',
    path: ACCOUNT,
    body: whitelabelSchema,
    response: answer,
    handler: (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: whitelabelJson(updateWhitelabel(core, ctx.params.account_id, dataObject(ctx), ifMatchOf(ctx))) };
    },
  },
  {
    method: 'DELETE',
    path: ACCOUNT,
    response: deletedAnswer(whitelabelSchema),
    handler: (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: { ...whitelabelJson(deleteWhitelabel(core, ctx.params.account_id)), _read_only: { deleted: true } } };
    },
  },
  ...FILE_KINDS.flatMap(fileRoutes),
  { method: 'GET', path: 'whitelabel/:domain', auth: 'none', response: answer, handler: (ctx, core) => ({ data: whitelabelJson(whitelabelByDomain(core, ctx.params.domain)) }) },
];

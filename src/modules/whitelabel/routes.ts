import type { Reply, RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { FILE_KINDS, fileName, imageOf, type FileKind } from './files.js';
import { whitelabelSchema } from './schema.js';
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

/** A logo or icon answered as the file itself, as Kazoo streams attachments (named after its type). */
function fileReply(kind: FileKind, f: WhitelabelFile): Reply {
  const name = fileName(kind, f.name, f.contentType);
  return {
    file: f.bytes,
    headers: { 'Content-Type': f.contentType, 'Content-Disposition': `attachment; filename=${name}`, 'X-Content-Type-Options': 'nosniff' },
  };
}

/** The account's routes for one kind of file: read it, upload it (the body an image, or base64). */
function fileRoutes(kind: FileKind): RouteDef[] {
  return [
    { method: 'GET', path: `${ACCOUNT}/${kind}`, handler: (ctx, core) => fileReply(kind, whitelabelFile(core, getWhitelabel(core, ctx.params.account_id).accountId, kind)) },
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
    { method: 'GET', path: `whitelabel/:domain/${kind}`, auth: 'none', handler: (ctx, core) => fileReply(kind, whitelabelFile(core, whitelabelByDomain(core, ctx.params.domain).accountId, kind)) },
  ];
}

/** `/v2/accounts/{id}/whitelabel…` and the token-free `/v2/whitelabel/{domain}…` Kazoo's web UI reads at its login page. */
export const whitelabelRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: ACCOUNT,
    handler: (ctx, core) => {
      const w = getWhitelabel(core, ctx.params.account_id);
      return { data: whitelabelJson(w), extras: { revision: w.rev } };
    },
  },
  {
    method: 'PUT',
    path: ACCOUNT,
    body: whitelabelSchema,
    handler: (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: whitelabelJson(createWhitelabel(core, ctx.params.account_id, dataObject(ctx), authOf(ctx))) };
    },
  },
  {
    method: 'POST',
    path: ACCOUNT,
    body: whitelabelSchema,
    handler: (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: whitelabelJson(updateWhitelabel(core, ctx.params.account_id, dataObject(ctx), ifMatchOf(ctx), authOf(ctx))) };
    },
  },
  {
    method: 'DELETE',
    path: ACCOUNT,
    handler: (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: { ...whitelabelJson(deleteWhitelabel(core, ctx.params.account_id)), _read_only: { deleted: true } } };
    },
  },
  ...FILE_KINDS.flatMap(fileRoutes),
  { method: 'GET', path: 'whitelabel/:domain', auth: 'none', handler: (ctx, core) => ({ data: whitelabelJson(whitelabelByDomain(core, ctx.params.domain)) }) },
];

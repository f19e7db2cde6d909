import type { Reply, RouteDef } from '../../http/router.js';
import { authOf, dataObject, ifMatchOf } from '../../http/request.js';
import { getAccount } from '../accounts/service.js';
import { FILE_KINDS, fileName, fileOf, type FileKind } from './files.js';
import { domainFor, domainsOf, setSystemDomains, testDomains } from './domains.js';
import { domainPlanAnswer, domainsSchema, domainTestAnswer } from './domains-schema.js';
import { ref } from '../../schema/registry.js';
import type { RequestContext } from '../../http/context.js';
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

/**
 * A logo, icon or welcome page answered as the file itself, as Kazoo streams attachments (named
 * after its type). A welcome page is sandboxed: opened on its own, its scripts do not run on the
 * API's origin.
 */
function fileReply(kind: FileKind, f: WhitelabelFile): Reply {
  const headers: Record<string, string> = {
    'Content-Type': f.contentType,
    'Content-Disposition': `attachment; filename=${fileName(kind, f.name, f.contentType)}`,
    'X-Content-Type-Options': 'nosniff',
  };
  if (f.contentType === 'text/html') headers['Content-Security-Policy'] = 'sandbox';
  return { file: f.bytes, headers };
}

/** The domain a domains request names: `?domain=`, or `data.domain`. */
function askedDomain(ctx: RequestContext): unknown {
  const d = ctx.data && typeof ctx.data === 'object' && !Array.isArray(ctx.data) ? (ctx.data as Record<string, unknown>).domain : undefined;
  return ctx.query.get('domain') ?? d;
}

/** `?domain=`: the domain a domains request is about. */
const DOMAIN_QUERY = [{ name: 'domain', description: "the domain (default: the account's whitelabel domain)", schema: { type: 'string' } }];

/** The media type a kind of file is answered as. */
const rawType = (kind: FileKind) => (kind === 'welcome' ? 'text/html' : 'image/*');

/** The account's routes for one kind of file: read it, upload it (the body an image, or base64). */
function fileRoutes(kind: FileKind): RouteDef[] {
  return [
    { method: 'GET', path: `${ACCOUNT}/${kind}`, raw: rawType(kind), handler: (ctx, core) => fileReply(kind, whitelabelFile(core, getWhitelabel(core, ctx.params.account_id).accountId, kind)) },
    {
      method: 'POST',
      path: `${ACCOUNT}/${kind}`,
      upload: true,
      query: [{ name: 'filename', description: 'the name the file is answered with', schema: { type: 'string' } }],
      response: answer,
      errors: [415],
      handler: (ctx, core) => {
        checkWhitelabelWrite(core, authOf(ctx));
        const accountId = getWhitelabel(core, ctx.params.account_id).accountId;
        const image = fileOf(ctx.upload, kind);
        const saved = saveWhitelabelFile(core, accountId, kind, { ...image, name: fileName(kind, ctx.query.get('filename'), image.contentType) });
        return { data: whitelabelJson(saved) };
      },
    },
    // no token: the login page shows the logo, icon and welcome page of the domain it is served on
    { method: 'GET', path: `whitelabel/:domain/${kind}`, auth: 'none', raw: rawType(kind), handler: (ctx, core) => fileReply(kind, whitelabelFile(core, whitelabelByDomain(core, ctx.params.domain).accountId, kind)) },
    // Kazoo's by-domain form under an account: the file of the whitelabel that claimed the domain
    { method: 'GET', path: `${ACCOUNT}/:domain/${kind}`, raw: rawType(kind), handler: (ctx, core) => fileReply(kind, whitelabelFile(core, whitelabelByDomain(core, ctx.params.domain).accountId, kind)) },
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
      return { data: whitelabelJson(createWhitelabel(core, ctx.params.account_id, dataObject(ctx), authOf(ctx))) };
    },
  },
  {
    method: 'POST',
    path: ACCOUNT,
    body: whitelabelSchema,
    response: answer,
    handler: (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: whitelabelJson(updateWhitelabel(core, ctx.params.account_id, dataObject(ctx), ifMatchOf(ctx), authOf(ctx))) };
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
  { method: 'GET', path: `${ACCOUNT}/:domain`, response: answer, handler: (ctx, core) => ({ data: whitelabelJson(whitelabelByDomain(core, ctx.params.domain)) }) },
  // the DNS records a whitelabelled domain needs: the account's domain, or `?domain=`
  {
    method: 'GET',
    path: `${ACCOUNT}/domains`,
    query: DOMAIN_QUERY,
    response: domainPlanAnswer,
    handler: (ctx, core) => ({ data: domainsOf(core, domainFor(core, getAccount(core, ctx.params.account_id).id, askedDomain(ctx))) }),
  },
  {
    method: 'POST',
    path: `${ACCOUNT}/domains`,
    body: { type: 'object', properties: { domain: { type: 'string', description: 'the domain to test (default: the account\'s whitelabel domain)' } } },
    query: DOMAIN_QUERY,
    response: domainTestAnswer,
    handler: async (ctx, core) => {
      checkWhitelabelWrite(core, authOf(ctx));
      return { data: await testDomains(core, domainFor(core, getAccount(core, ctx.params.account_id).id, askedDomain(ctx))) };
    },
  },
  // without an account: a domain's records, no token needed (as the by-domain lookups); the plan itself, a super-duper admin's
  { method: 'GET', path: 'whitelabel/domains', auth: 'none', query: DOMAIN_QUERY, response: domainPlanAnswer, handler: (ctx, core) => ({ data: domainsOf(core, domainFor(core, undefined, askedDomain(ctx))) }) },
  { method: 'POST', path: 'whitelabel/domains', superduper: true, body: domainsSchema, response: ref(domainsSchema), handler: (ctx, core) => ({ data: setSystemDomains(core, dataObject(ctx)) }) },
];

import type { Core } from '../../core-type.js';
import type { RequestContext } from '../../http/context.js';
import { writeRoutes, type QueryParam, type RouteDef } from '../../http/router.js';
import { authOf, dataObject, flagOf, ifMatchOf } from '../../http/request.js';
import { CREATED_KEY, descendingOf, LISTING_QUERY, listingReply } from '../../http/paging.js';
import { deletedAnswer, documentAnswer, listAnswer } from '../../http/answers.js';
import { errors } from '../../errors.js';
import { getAccount, isDescendant, resellerIdOf } from '../accounts/service.js';
import { documentService, documentSummary, kindRows } from '../documents/crud.js';
import { filterDoc, publicDoc, type StoredDoc } from '../documents/store.js';
import { withKeptPasswords, withMaskedPasswords } from '../resources/service.js';
import { isAccountAdmin } from '../users/service.js';
import type { TelModule } from '../types.js';
import { resourceTemplateSchema } from './schema.js';

/** Resource templates, kept with the reseller that offers them. */
export const resourceTemplates = documentService({
  kind: 'resource_template',
  endpoint: 'resource_templates',
  summary: ['name', 'template_name', 'classifiers'],
  schema: resourceTemplateSchema,
  keep: withKeptPasswords,
});

/**
 * Whose templates a request means, as Kazoo decides it: those of the path account's reseller;
 * with `?local=true` from a reseller's token, the reseller's own.
 */
function templateOwner(ctx: RequestContext, core: Core): string {
  const auth = authOf(ctx);
  if (flagOf(ctx, 'local') && auth.account.reseller) return auth.accountId;
  return resellerIdOf(core, getAccount(core, ctx.params.account_id));
}

/** A change needs the caller to be an admin of the reseller whose templates they are. */
function writableOwner(ctx: RequestContext, core: Core): string {
  const owner = templateOwner(ctx, core);
  const auth = authOf(ctx);
  if (owner !== auth.accountId || !isAccountAdmin(core, auth)) {
    throw errors.forbidden('resource templates are changed by an admin of the reseller that offers them (its own token, ?local=true on its own account)');
  }
  return owner;
}

/**
 * A template as the caller may see it: its gateways' passwords are for the admins of the reseller
 * offering it (or of an account above), as a resource's are for its account's; the customers
 * reading it, and their users, see them masked.
 */
function templateJson(ctx: RequestContext, core: Core, owner: string, d: StoredDoc): Record<string, unknown> {
  const auth = authOf(ctx);
  const offersIt = auth.accountId === owner || isDescendant(getAccount(core, owner), auth.accountId);
  return auth.isSuperduper || (offersIt && isAccountAdmin(core, auth)) ? publicDoc(d) : withMaskedPasswords(publicDoc(d));
}

const BASE = 'accounts/:account_id/resource_templates';
const ONE = `${BASE}/:template_id`;

/** `?local=true`: a reseller's own templates rather than its reseller's. */
const LOCAL: QueryParam[] = [{ name: 'local', description: "`true`: the caller's own templates (a reseller's token)", schema: { type: 'boolean' } }];
const answer = documentAnswer(resourceTemplateSchema);

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: BASE,
    query: [...LISTING_QUERY, ...LOCAL],
    response: listAnswer(resourceTemplateSchema, resourceTemplates.kind.summary),
    handler: (ctx, core) => {
      const owner = templateOwner(ctx, core);
      const desc = descendingOf(ctx.query);
      return listingReply(ctx.query, (q) => resourceTemplates.page(core, owner, q, desc), (d) => documentSummary(resourceTemplates.kind, d), CREATED_KEY, {
        whole: (d) => filterDoc(d, templateJson(ctx, core, owner, d)),
        rows: (docs) => kindRows(resourceTemplates.kind, core, docs),
      });
    },
  },
  {
    method: 'PUT',
    path: BASE,
    body: resourceTemplateSchema,
    query: LOCAL,
    response: answer,
    handler: (ctx, core) => ({ data: publicDoc(resourceTemplates.create(core, writableOwner(ctx, core), dataObject(ctx))) }),
  },
  {
    method: 'GET',
    path: ONE,
    query: LOCAL,
    response: answer,
    handler: (ctx, core) => {
      const owner = templateOwner(ctx, core);
      const d = resourceTemplates.get(core, owner, ctx.params.template_id);
      return { data: templateJson(ctx, core, owner, d), extras: { revision: d.rev } };
    },
  },
  ...writeRoutes(
    ONE,
    (ctx, core, mode) => ({
      data: publicDoc(resourceTemplates.update(core, writableOwner(ctx, core), ctx.params.template_id, dataObject(ctx), mode, ifMatchOf(ctx))),
    }),
    resourceTemplateSchema,
    answer,
  ).map((r): RouteDef => ({ ...r, query: LOCAL })),
  {
    method: 'DELETE',
    path: ONE,
    query: LOCAL,
    response: deletedAnswer(resourceTemplateSchema),
    handler: (ctx, core) => ({
      data: { ...publicDoc(resourceTemplates.remove(core, writableOwner(ctx, core), ctx.params.template_id, ifMatchOf(ctx))), _read_only: { deleted: true } },
    }),
  },
];

/** `/v2/accounts/{id}/resource_templates`: what a reseller offers its customers to make resources from. */
export const resourceTemplatesModule: TelModule = { name: 'resource_templates', endpoints: ['resource_templates'], routes };

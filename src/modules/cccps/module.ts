import type { Core } from '../../core-type.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { stmt } from '../../store/db.js';
import { documentService, type DocumentService } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
import type { StoredDoc } from '../documents/store.js';
import { isReconcilable, normalizeSystemNumber } from '../numbers/converters.js';
import type { TelModule } from '../types.js';
import { cccpSchema } from './schema.js';

/**
 * Whether an active entry of any account already holds this value of `field` (`pin`, `cid`):
 * Kazoo's `cccps/pin_listing` and `cid_listing` views span every account, so that a caller's PIN
 * or number names one entry. One look-up of an index of migration 4300.
 */
function taken(core: Core, field: 'pin' | 'cid', value: string): boolean {
  const sql =
    field === 'pin'
      ? "SELECT 1 FROM docs WHERE kind = 'cccp' AND json_extract(doc, '$.pin') = ? AND json_extract(doc, '$.active') = 1 LIMIT 1"
      : "SELECT 1 FROM docs WHERE kind = 'cccp' AND json_extract(doc, '$.cid') = ? AND json_extract(doc, '$.active') = 1 LIMIT 1";
  return stmt(core.db, sql).get(value) !== undefined;
}

/**
 * Kazoo's checks of a new entry (only at its creation, as `cb_cccps` makes them): with a `cid`, that
 * number unique among the active entries; without one, the `pin`.
 */
function checkCccp(core: Core, _accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  if (selfId !== undefined) return undefined;
  if (typeof doc.cid === 'string') {
    return taken(core, 'cid', doc.cid) ? { cccp: { unique: { message: 'CID already exists', cause: doc.cid } } } : undefined;
  }
  if (typeof doc.pin === 'string' && taken(core, 'pin', doc.pin)) return { cccp: { unique: { message: 'Pin already exists' } } };
  return undefined;
}

/** A listing row as Kazoo's `cccps/crossbar_listing` view emits it. */
function cccpRow(d: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = { account_id: d.accountId };
  for (const f of ['active', 'user_id', 'cid', 'pin', 'retain_cid', 'comment']) if (d.doc[f] !== undefined) row[f] = d.doc[f];
  return row;
}

const base = documentService({
  kind: 'cccp',
  endpoint: 'cccps',
  summary: ['account_id', 'active', 'user_id', 'cid', 'pin', 'retain_cid', 'comment'],
  row: cccpRow,
  rowFields: { account_id: { type: 'string', description: 'the account of the entry' } },
  schema: cccpSchema,
  check: checkCccp,
});

/**
 * Calling-card callback entries. A new entry's `cid` must be a number the platform routes
 * (Kazoo's `knm_converters:is_reconcilable`) and is stored normalised (`4155550100` → `+14155550100`).
 */
export const cccps: DocumentService = {
  ...base,
  create(core, accountId, input, id) {
    if (typeof input.cid !== 'string') return base.create(core, accountId, input, id);
    if (!isReconcilable(core, input.cid)) throw errors.validation({ cccp: { unique: { message: 'Number is non reconcilable', cause: input.cid } } });
    return base.create(core, accountId, { ...input, cid: normalizeSystemNumber(core, input.cid) }, id);
  },
};

/**
 * A callback request (Kazoo's `PUT cccps/autodial`): the account's own user asks to be called back
 * and connected to `b_leg_number`. Kazoo hands it to its switch; tel has none, so the request is
 * checked and accepted and no call is placed. Any other id is none of Kazoo's (404).
 */
const autodialRoute: RouteDef = {
  method: 'PUT',
  path: 'accounts/:account_id/cccps/:doc_id',
  body: { type: 'object', properties: { b_leg_number: { type: 'string', description: 'the number to connect the callback to' } } },
  response: { type: 'object', description: 'empty: the request is accepted' },
  handler: (ctx) => {
    if (ctx.params.doc_id !== 'autodial') throw errors.badIdentifier(ctx.params.doc_id);
    dataObject(ctx);
    if (ctx.auth?.accountId !== ctx.params.account_id) {
      throw errors.validation({ account: { forbidden: { message: 'For direct use by account holder only' } } });
    }
    return { data: {} };
  },
};

/** `/v2/accounts/{id}/cccps`: Kazoo's `cb_cccps` (its cccp application). */
export const cccpsModule: TelModule = { name: 'cccps', endpoints: ['cccps'], routes: [...documentRoutes(cccps), autodialRoute] };

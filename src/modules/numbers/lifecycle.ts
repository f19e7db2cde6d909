import type { Core } from '../../core-type.js';
import { stmt, transaction } from '../../store/db.js';
import { ApiError, errors } from '../../errors.js';
import { isObject, mergePatch } from '../../util/json.js';
import { unixMsToGregorian } from '../../util/time.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { findAccount, getAccount, resellerIdOf } from '../accounts/service.js';
import { isReconcilable, normalizeSystemNumber } from './converters.js';
import { availableFeatures, featuresOf, LOCAL_CARRIER, POOL_CARRIER } from './features.js';
import { findPoolNumber, poolsOf, type PoolRow } from './pool.js';
import { MAX_COLLECTION_NUMBERS, phoneNumberSchema } from './schema.js';
import { featureNames, type NumberRow } from './service.js';

/**
 * A number's life as Kazoo's `knm_numbers` leads it, over tel's inventory (`phone_numbers`) and the
 * simulated carrier's pool (`number_pool`): created, bought (activated), reserved, released back
 * to the pool or deleted, its document changed; each operation on one number at a time, answering
 * the number's document or failing with Kazoo's number error.
 */

/** Who asks, and for which account. */
export interface NumberCaller {
  /** the account the path names: numbers are assigned to it */
  accountId: string;
  /** the caller's own account */
  authAccountId: string;
  /** a super-duper admin: Kazoo's number "admin", who may create, delete and see any number */
  isAdmin: boolean;
}

/** Kazoo's error of a number operation (`knm_errors:to_json`). */
export interface NumberError {
  code: number;
  error: string;
  message: string;
  cause?: string;
}

/** A number operation that failed: Kazoo's error, or `not_found` (its 404 bad identifier). */
export class NumberFailure extends Error {
  constructor(readonly reason: NumberError | 'not_found') {
    super(reason === 'not_found' ? 'not_found' : reason.message);
  }
}

const fail = (code: number, error: string, message: string, cause?: string): never => {
  throw new NumberFailure({ code, error, message, ...(cause !== undefined ? { cause } : {}) });
};
const notFound = (): never => {
  throw new NumberFailure('not_found');
};
const unauthorized = (cause?: string) => fail(403, 'forbidden', 'requestor is unauthorized to perform operation', cause);
const invalidTransition = (from: string, to: string) => fail(400, 'invalid_state_transition', 'invalid state transition', `from ${from} to ${to}`);

/** The API error a failed number operation answers. */
export function failureError(f: NumberFailure): ApiError {
  return f.reason === 'not_found' ? errors.numberNotFound() : errors.numberError(f.reason);
}

const validateNumberDoc = compileValidator(phoneNumberSchema);

/** The fields a number's document keeps: what its account sent, but the server's. */
function publicFields(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (k.startsWith('_') || k.startsWith('pvt_') || ['id', 'used_by', 'state', 'features', 'create_with_state', 'numbers'].includes(k)) continue;
    out[k] = v;
  }
  return out;
}

/** A number as written in a path or a list: E.164 through the system's converters. */
export function numberOf(core: Core, raw: string): string {
  const number = normalizeSystemNumber(core, raw.replace(/^ /, '+'));
  if (!isReconcilable(core, number)) fail(404, 'not_reconcilable', `number ${number} is not reconcilable`, number);
  return number;
}

/** The inventory row of a number. */
export function findInventoryNumber(core: Core, number: string): NumberRow | undefined {
  return stmt(core.db, 'SELECT * FROM phone_numbers WHERE number = ?').get(number) as NumberRow | undefined;
}

/** True when `accountId` is `ancestorId` or below it. */
function within(core: Core, accountId: string, ancestorId: string): boolean {
  return accountId === ancestorId || (findAccount(core, accountId)?.tree.includes(ancestorId) ?? false);
}

/** Kazoo's `is_authorized`: the caller is a super-duper admin, or its account is the number's or above it. */
function authorizedFor(core: Core, caller: NumberCaller, ownerId: string): boolean {
  return caller.isAdmin || within(core, ownerId, caller.authAccountId);
}

const carrierOf = (r: NumberRow) => (r.pool_id ? POOL_CARRIER : LOCAL_CARRIER);
const parsed = (text: string | null | undefined): Record<string, unknown> => (text ? (JSON.parse(text) as Record<string, unknown>) : {});

/**
 * A number's document as Kazoo's `knm_phone_number:to_public_json` answers it: the fields its
 * account set, its id, state, user and features on, and `_read_only` (times, the features it may
 * have, its carrier).
 */
export function numberDoc(core: Core, r: NumberRow, caller: Pick<NumberCaller, 'isAdmin'>): Record<string, unknown> {
  const features = featureNames(r);
  const carrier = carrierOf(r);
  const available = availableFeatures(core, { accountId: r.account_id, carrier, usedBy: r.used_by, isAdmin: caller.isAdmin });
  return {
    ...parsed(r.doc),
    id: r.number,
    state: r.state,
    ...(r.used_by ? { used_by: r.used_by } : {}),
    ...(features.length > 0 ? { features } : {}),
    _read_only: {
      created: unixMsToGregorian(r.created),
      modified: unixMsToGregorian(r.modified),
      features: { available, settings: {} },
      carrier_module: carrier.replace(/^knm_/, ''),
    },
  };
}

/** A number of the pool as a document (state `available`, assigned to no account). */
function poolDoc(p: PoolRow, state = 'available'): Record<string, unknown> {
  const t = unixMsToGregorian(p.created);
  return { id: p.number, state, _read_only: { created: t, modified: t, features: { available: [], settings: {} }, carrier_module: 'managed' } };
}

/**
 * Checks a document sent for a number (Kazoo's `phone_numbers` schema) and works out the features
 * it turns on; a feature the number may not have refuses the change (403).
 */
function withFeatures(core: Core, r: NumberRow, doc: Record<string, unknown>, caller: NumberCaller): NumberRow {
  throwIfErrors(validateNumberDoc.check(doc));
  const available = availableFeatures(core, { accountId: r.account_id, carrier: carrierOf(r), usedBy: r.used_by, isAdmin: caller.isAdmin });
  const result = featuresOf(doc, r.state, available, parsed(r.features));
  if ('denied' in result) unauthorized(`feature${result.denied.length > 1 ? 's' : ''} not available: ${result.denied.join(', ')}`);
  const features = (result as { features: Record<string, unknown> }).features;
  return { ...r, doc: Object.keys(doc).length > 0 ? JSON.stringify(doc) : null, features: Object.keys(features).length > 0 ? JSON.stringify(features) : null };
}

/** Writes a number's row (a new one, or the new state of one). */
function saveRow(core: Core, r: NumberRow): void {
  stmt(
    core.db,
    `INSERT INTO phone_numbers (number, account_id, resource_id, state, job_id, created, modified, doc, features, used_by, pool_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(number) DO UPDATE SET account_id = excluded.account_id, state = excluded.state, modified = excluded.modified,
       doc = excluded.doc, features = excluded.features, used_by = excluded.used_by, pool_id = excluded.pool_id`,
  ).run(r.number, r.account_id, r.resource_id ?? null, r.state, r.job_id ?? null, r.created, r.modified, r.doc ?? null, r.features ?? null, r.used_by ?? null, r.pool_id ?? null);
}

/** A new inventory row for a number of the pool (or none), bought by an account in a state. */
function newRow(number: string, accountId: string, state: string, pool: PoolRow | undefined): NumberRow {
  const now = Date.now();
  return { number, account_id: accountId, resource_id: null, state, job_id: null, created: pool?.created ?? now, modified: now, doc: null, features: null, used_by: null, pool_id: pool?.account_id ?? null };
}

/** The states a caller may create numbers in (Kazoo's `allowed_creation_states`): tel lets no account add numbers of its own (`wnm_allow_additions`). */
export function creationStates(caller: Pick<NumberCaller, 'isAdmin'>): string[] {
  return caller.isAdmin ? ['aging', 'available', 'in_service', 'port_in', 'reserved'] : [];
}

/**
 * `PUT phone_numbers/{number}` (and `…/port`, state `port_in`): adds a number to the path
 * account in `create_with_state` (default `in_service`), with the document sent. Only a super-duper
 * admin creates numbers, in any creatable state (`available` puts it in the path account's pool);
 * anyone may create one being ported in. A number of the pool is taken from it; one an account
 * holds is 409 `number_exists` (but one being ported in).
 */
export function createNumber(core: Core, caller: NumberCaller, raw: string, body: Record<string, unknown>, forcedState?: string): Record<string, unknown> {
  const number = numberOf(core, raw);
  const state = forcedState ?? (typeof body.create_with_state === 'string' && body.create_with_state !== '' ? body.create_with_state : 'in_service');
  if (state !== 'port_in' && !creationStates(caller).includes(state)) unauthorized(`creating number in state '${state}' is not allowed`);
  getAccount(core, caller.accountId);
  return transaction(core.db, () => {
    const held = findInventoryNumber(core, number);
    if (held && held.state !== 'port_in') fail(409, 'number_exists', `number ${number} already exists`, number);
    const pool = findPoolNumber(core, number);
    if (state === 'available') {
      if (held || pool) fail(409, 'number_exists', `number ${number} already exists`, number);
      stmt(core.db, 'INSERT INTO number_pool (number, account_id, created) VALUES (?, ?, ?)').run(number, caller.accountId, Date.now());
      return poolDoc(findPoolNumber(core, number)!);
    }
    const base = held ? { ...held, account_id: caller.accountId, state, modified: Date.now() } : newRow(number, caller.accountId, state, pool);
    const row = withFeatures(core, base, publicFields(body), caller);
    if (pool) stmt(core.db, 'DELETE FROM number_pool WHERE number = ?').run(number);
    saveRow(core, row);
    return numberDoc(core, row, caller);
  });
}

/**
 * `PUT phone_numbers/{number}/activate`: the path account buys the number (Kazoo's move to
 * `in_service`): one of the pool it may search (its own, its reseller's; any for a super-duper
 * admin), one it holds reserved or being ported in, or one an account above it reserved for it.
 * One it already has in service is answered as it is.
 */
export function activateNumber(core: Core, caller: NumberCaller, raw: string, body: Record<string, unknown>): Record<string, unknown> {
  const number = numberOf(core, raw);
  return transaction(core.db, () => {
    const held = findInventoryNumber(core, number);
    if (held) {
      if (held.state === 'in_service' && held.account_id === caller.accountId) return numberDoc(core, held, caller);
      const fromParent = held.state === 'reserved' && within(core, caller.accountId, held.account_id);
      if (!authorizedFor(core, caller, held.account_id) && !fromParent) unauthorized();
      if (!['reserved', 'port_in', 'aging', 'in_service'].includes(held.state)) invalidTransition(held.state, 'in_service');
      return save(core, caller, { ...held, account_id: caller.accountId, state: 'in_service', modified: Date.now() }, body);
    }
    const pool = findPoolNumber(core, number);
    if (!pool || !(caller.isAdmin || poolsOf(core, caller.accountId).includes(pool.account_id))) notFound();
    stmt(core.db, 'DELETE FROM number_pool WHERE number = ?').run(number);
    return save(core, caller, newRow(number, caller.accountId, 'in_service', pool), body);
  });
}

/**
 * `PUT phone_numbers/{number}/reserve`: the number is reserved for the path account: taken from
 * the pool, or one in service (or reserved above it) the caller may act on. Reserving again for
 * the same account is Kazoo's 400 `no_change_required`.
 */
export function reserveNumber(core: Core, caller: NumberCaller, raw: string, body: Record<string, unknown>): Record<string, unknown> {
  const number = numberOf(core, raw);
  return transaction(core.db, () => {
    const held = findInventoryNumber(core, number);
    if (held) {
      if (held.state === 'reserved' && held.account_id === caller.accountId) fail(400, 'no_change_required', 'no change required');
      if (!authorizedFor(core, caller, held.account_id) && !within(core, caller.accountId, held.account_id)) unauthorized();
      if (!['reserved', 'in_service'].includes(held.state)) invalidTransition(held.state, 'reserved');
      return save(core, caller, { ...held, account_id: caller.accountId, state: 'reserved', modified: Date.now() }, body);
    }
    const pool = findPoolNumber(core, number);
    if (!pool || !(caller.isAdmin || poolsOf(core, caller.accountId).includes(pool.account_id))) notFound();
    stmt(core.db, 'DELETE FROM number_pool WHERE number = ?').run(number);
    return save(core, caller, newRow(number, caller.accountId, 'reserved', pool), body);
  });
}

/** Saves a row with the fields sent merged into its document (an activation's or a reservation's public fields). */
function save(core: Core, caller: NumberCaller, row: NumberRow, body: Record<string, unknown>): Record<string, unknown> {
  const sent = publicFields(body);
  const doc = Object.keys(sent).length > 0 ? mergePatch(parsed(row.doc), sent) : parsed(row.doc);
  const next = withFeatures(core, row, doc, caller);
  saveRow(core, next);
  return numberDoc(core, next, caller);
}

/** The inventory row of a number the path account holds (itself or an account below it), else 404. */
function visibleRow(core: Core, caller: NumberCaller, number: string): NumberRow {
  const held = findInventoryNumber(core, number);
  if (!held || !within(core, held.account_id, caller.accountId)) return notFound();
  return held;
}

/**
 * `GET phone_numbers/{number}`: a number the path account (or an account below it) holds; a
 * super-duper admin also reads those of the pool.
 */
export function readNumber(core: Core, caller: NumberCaller, raw: string): Record<string, unknown> {
  const number = numberOf(core, raw);
  const held = findInventoryNumber(core, number);
  if (held && within(core, held.account_id, caller.accountId)) return numberDoc(core, held, caller);
  const pool = caller.isAdmin ? findPoolNumber(core, number) : undefined;
  return pool ? poolDoc(pool) : notFound();
}

/**
 * `POST` (`replace`: the fields sent become the document) or `PATCH` (`merge`) of a number's
 * document: its features follow (cnam, e911, prepend, …).
 */
export function updateNumber(core: Core, caller: NumberCaller, raw: string, body: Record<string, unknown>, mode: 'replace' | 'merge'): Record<string, unknown> {
  const number = numberOf(core, raw);
  return transaction(core.db, () => {
    const held = visibleRow(core, caller, number);
    const sent = publicFields(body);
    const doc = mode === 'merge' ? mergePatch(parsed(held.doc), sent) : sent;
    const next = withFeatures(core, { ...held, modified: Date.now() }, doc, caller);
    saveRow(core, next);
    return numberDoc(core, next, caller);
  });
}

/**
 * `DELETE phone_numbers/{number}`: Kazoo's release. The number leaves its account, its document and
 * features reset, and goes back to the pool it was bought from (else its account's reseller's),
 * `available`; with `hard` a super-duper admin deletes it for good. A number no account holds is
 * not found.
 */
export function releaseNumber(core: Core, caller: NumberCaller, raw: string, hard: boolean): Record<string, unknown> {
  const number = numberOf(core, raw);
  return transaction(core.db, () => {
    const held = visibleRow(core, caller, number);
    if (!['released', 'reserved', 'port_in', 'in_service'].includes(held.state) && carrierOf(held) !== LOCAL_CARRIER) invalidTransition(held.state, 'available');
    stmt(core.db, 'DELETE FROM phone_numbers WHERE number = ?').run(number);
    if (hard && caller.isAdmin) {
      stmt(core.db, 'DELETE FROM number_pool WHERE number = ?').run(number);
      return poolDoc({ number, account_id: held.account_id, created: held.created }, 'deleted');
    }
    const pool = held.pool_id ?? resellerIdOf(core, getAccount(core, held.account_id));
    stmt(core.db, 'INSERT OR REPLACE INTO number_pool (number, account_id, created) VALUES (?, ?, ?)').run(number, pool, held.created);
    return poolDoc({ number, account_id: pool, created: held.created });
  });
}

/**
 * `GET phone_numbers/{number}/identify`: the account a number is in service for, as Kazoo's
 * `knm_numbers:lookup_account` tells it, for the numbers of the path account and below it only
 * (another tenant's are not found): one not in service is Kazoo's 400 `not_in_service`.
 */
export function identifyNumber(core: Core, caller: NumberCaller, raw: string): Record<string, unknown> {
  const number = numberOf(core, raw);
  const held = visibleRow(core, caller, number);
  if (held.state !== 'in_service') throw errors.numberNotInService({ cause: 'not_in_service', account_id: held.account_id, number });
  return { account_id: held.account_id, number };
}

/** One number's operation as a single request answers it: its document, or its error. */
export function single(run: () => Record<string, unknown>): Record<string, unknown> {
  try {
    return run();
  } catch (err) {
    if (err instanceof NumberFailure) throw failureError(err);
    throw err;
  }
}

/**
 * A collection's operation, one number at a time (one failing does not stop the others): the
 * documents of those that succeeded and the errors of the others, by number, as Kazoo's
 * `set_response`. Every number failing is the first one's error when there is one, else a 200
 * listing them.
 */
export function collection(numbers: readonly string[], run: (number: string) => Record<string, unknown>): Record<string, unknown> {
  const success: Record<string, unknown> = {};
  const error: Record<string, unknown> = {};
  for (const n of numbers) {
    try {
      const doc = run(n);
      success[String(doc.id ?? n)] = doc;
    } catch (err) {
      if (!(err instanceof NumberFailure)) throw err;
      if (numbers.length === 1) throw failureError(err);
      error[n] = err.reason === 'not_found' ? { code: 404, error: 'not_found', message: `number ${n} not found`, cause: n } : err.reason;
    }
  }
  return { success, error };
}

/** The numbers of a collection request (`data.numbers`), as Kazoo checks them: a list of one or more, none twice. */
export function collectionNumbers(core: Core, data: Record<string, unknown>): string[] {
  const list = data.numbers;
  if (list === undefined) throw errors.invalidField('numbers', 'required', 'list of numbers missing');
  if (!Array.isArray(list)) throw errors.invalidField('numbers', 'type', 'numbers must be a list');
  if (list.length === 0) throw errors.invalidField('numbers', 'minimum', 'minimum 1 number required');
  if (list.length > MAX_COLLECTION_NUMBERS) {
    throw errors.invalidField('numbers', 'maxItems', `at most ${MAX_COLLECTION_NUMBERS} numbers a request: a larger set is a resource job`, { target: MAX_COLLECTION_NUMBERS });
  }
  const strings = list.map((n) => (typeof n === 'string' ? n : String(n)));
  if (new Set(strings.map((n) => normalizeSystemNumber(core, n))).size !== strings.length) throw errors.invalidField('numbers', 'uniqueItems', 'some numbers appear twice');
  return strings;
}

/**
 * `POST phone_numbers/check`: for each number of a collection, `success` when a pool the caller may
 * buy from offers it (any pool, for a super-duper admin), else `error`.
 */
export function checkNumbers(core: Core, caller: NumberCaller, numbers: readonly string[]): Record<string, 'success' | 'error'> {
  const pools = poolsOf(core, caller.accountId);
  const out: Record<string, 'success' | 'error'> = {};
  for (const n of numbers) {
    const p = findPoolNumber(core, normalizeSystemNumber(core, n.replace(/^ /, '+')));
    out[n] = p && (caller.isAdmin || pools.includes(p.account_id)) ? 'success' : 'error';
  }
  return out;
}

/** The fields of a collection request besides its numbers: what each number's document gets. */
export function collectionFields(data: Record<string, unknown>): Record<string, unknown> {
  const { numbers: _n, ...rest } = data;
  return isObject(rest) ? rest : {};
}

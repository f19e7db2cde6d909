import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { documentService } from '../documents/crud.js';
import { insertChosenId, type StoredDoc } from '../documents/store.js';
import { isReconcilable, normalizeSystemNumber } from '../numbers/converters.js';
import { linearExec } from '../../util/linear-regex.js';
import { rateSchema } from './schema.js';

/** The system configuration category of rating (Kazoo's hotornot). */
export const HOTORNOT_CATEGORY = 'hotornot';

/** Kazoo's default ratedeck (its database `ratedeck`). */
export const DEFAULT_RATEDECK = 'ratedeck';

/** Rates are global: each ratedeck keeps its own, as Kazoo keeps them in a database each. */
const ownerOf = (ratedeckId: string) => `ratedeck:${ratedeckId}`;

/** Rates, a ratedeck at a time. */
export const rates = documentService({
  kind: 'rate',
  endpoint: 'rates',
  summary: ['name', 'cost', 'prefix', 'description', 'surcharge', 'carrier'],
  row: (d) => {
    const row: Record<string, unknown> = {};
    const view: [string, string][] = [['name', 'rate_name'], ['cost', 'rate_cost'], ['prefix', 'prefix'], ['description', 'description'], ['surcharge', 'rate_surcharge'], ['carrier', 'carrier']];
    for (const [to, from] of view) if (d.doc[from] !== undefined) row[to] = d.doc[from];
    return row;
  },
  rowFields: { name: { type: 'string' }, cost: { type: 'number' }, description: { type: 'string' }, surcharge: { type: 'number' } },
  schema: rateSchema,
});

const RATEDECK_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** The ratedeck a request names (`ratedeck_id`), else the system's default one (`hotornot` `default_ratedeck`). */
export function ratedeckOf(core: Core, requested: unknown): string {
  if (requested === undefined || requested === null || requested === '') {
    const configured = core.config.value<unknown>(HOTORNOT_CATEGORY, 'default_ratedeck', DEFAULT_RATEDECK);
    return typeof configured === 'string' && configured !== '' ? configured : DEFAULT_RATEDECK;
  }
  if (typeof requested !== 'string' || !RATEDECK_ID.test(requested)) {
    throw errors.invalidField('ratedeck_id', 'pattern', 'A ratedeck id is 1 to 64 letters, digits, dots, dashes or underscores', { value: requested });
  }
  return requested;
}

/** A page of a ratedeck's rates, oldest first. */
export function ratesPage(core: Core, ratedeckId: string, q: PageQuery<CompoundKey>, descending: boolean): Page<StoredDoc, CompoundKey> {
  return rates.page(core, ownerOf(ratedeckId), q, descending);
}

/** A number's or a prefix's leading digits as integers, longest first (Kazoo's `prefix_keys`). */
export function prefixKeys(number: string): number[] {
  const digits = number.replace(/\D/g, '').slice(0, 15);
  const keys: number[] = [];
  for (let i = digits.length; i >= 1; i--) keys.push(Number(digits.slice(0, i)));
  return keys;
}

/** The rates of a ratedeck whose prefix leads `number` (Kazoo's `rates/lookup`): one search of `docs_rates_prefix` a prefix. */
export function candidateRates(core: Core, ratedeckId: string, number: string): StoredDoc[] {
  const keys = prefixKeys(number);
  if (keys.length === 0) return [];
  const ids = stmt(
    core.db,
    `SELECT id FROM docs WHERE account_id = ? AND kind = 'rate' AND json_extract(doc, '$.prefix') IN (SELECT value FROM json_each(?))`,
  ).all(ownerOf(ratedeckId), JSON.stringify(keys)) as { id: string }[];
  return ids.map((r) => rates.get(core, ownerOf(ratedeckId), r.id));
}

/** A prefix as Kazoo reads it, an integer (`"1"` is 1), written out. */
const prefixText = (prefix: unknown) => (typeof prefix === 'string' && /^\d+$/.test(prefix) ? String(Number(prefix)) : String(prefix));

/** The id Kazoo gives a rate: its country (`XX` when none), its prefix and its suffix. */
function rateId(doc: Record<string, unknown>): string {
  const country = typeof doc.iso_country_code === 'string' && doc.iso_country_code !== '' ? doc.iso_country_code : 'XX';
  const suffix = typeof doc.rate_suffix === 'string' && doc.rate_suffix !== '' ? `-${doc.rate_suffix}` : '';
  return `${country}-${prefixText(doc.prefix)}${suffix}`;
}

/**
 * Adds a rate to a ratedeck, with Kazoo's id (`US-1`, `XX-44-mobile`; an id tel holds already is
 * a 409) and, when it has no routes, the route of its prefix (`^\+?1.+$`).
 */
export function createRate(core: Core, ratedeckId: string, input: Record<string, unknown>): StoredDoc {
  const doc = { ...input };
  if (!Array.isArray(doc.routes) || doc.routes.length === 0) doc.routes = [`^\\+?${prefixText(doc.prefix)}.+$`];
  return insertChosenId(() => rates.create(core, ownerOf(ratedeckId), doc, rateId(doc)));
}

/** The ratedecks tel holds rates in, and the default one. */
export function ratedecks(core: Core): { default_ratedeck: string; ratedecks: string[] } {
  const owners = stmt(core.db, "SELECT DISTINCT account_id FROM docs WHERE kind = 'rate' AND account_id LIKE 'ratedeck:%' ORDER BY account_id").all() as { account_id: string }[];
  return { default_ratedeck: ratedeckOf(core, undefined), ratedecks: owners.map((o) => o.account_id.slice('ratedeck:'.length)) };
}

/** Whether a rate's route takes the number (on RE2's linear-time engine, as every stored pattern). */
function routeMatches(source: unknown, number: string): boolean {
  return typeof source === 'string' && linearExec(source, number) !== null;
}

/** What a rate lookup filters on besides the number (`direction`, the query's). */
export interface RateQuery {
  ratedeckId?: unknown;
  direction?: string | null;
}

const units = (dollars: unknown) => Math.round((typeof dollars === 'number' ? dollars : 0) * 10_000);

/**
 * What a call to a number costs, as Kazoo's hotornot rates it (`GET /v2/rates/number/{n}`): the
 * ratedeck's rates whose prefix leads the number (normalised to E.164), kept when their direction
 * and routes match, the longest prefix first, then the lowest `weight`. Answered with Kazoo's
 * fields: costs in units of 1/10,000 of the currency as text, `Base-Cost` in the currency (the
 * cost of the minimum billed, plus the surcharge). A number that is not routable off the platform
 * is a 400; one no rate matches, Kazoo's 500.
 */
export function rateNumber(core: Core, number: string, query: RateQuery): Record<string, unknown> {
  if (!isReconcilable(core, number)) throw errors.invalidField('number format', 'error', 'Number is un-rateable');
  const e164 = normalizeSystemNumber(core, number);
  const ratedeckId = ratedeckOf(core, query.ratedeckId);
  const direction = query.direction ?? undefined;
  const matching = candidateRates(core, ratedeckId, e164).filter((r) => {
    const d = r.doc.direction;
    const directions = d === undefined ? ['inbound', 'outbound'] : Array.isArray(d) ? d : [d];
    if (direction && !directions.includes(direction)) return false;
    const routes = Array.isArray(r.doc.routes) ? r.doc.routes : [];
    return routes.some((route) => routeMatches(route, e164));
  });
  const weight = (r: StoredDoc) => (typeof r.doc.weight === 'number' ? r.doc.weight : 100);
  const best = matching.sort((a, b) => String(b.doc.prefix).length - String(a.doc.prefix).length || weight(a) - weight(b))[0];
  if (!best) throw errors.noRate();
  const rate = best.doc;
  const cost = units(rate.rate_cost);
  const surcharge = units(rate.rate_surcharge);
  const minimum = typeof rate.rate_minimum === 'number' ? rate.rate_minimum : Number(core.config.value(HOTORNOT_CATEGORY, 'default_rate_minimum', 60));
  const baseCost = cost * Math.trunc((minimum === 0 ? 60 : minimum) / 60) + surcharge;
  const out: Record<string, unknown> = {
    'Base-Cost': baseCost / 10_000,
    'E164-Number': e164,
    Prefix: rate.prefix,
    Rate: String(cost),
    'Rate-ID': best.id,
    'Rate-Increment': typeof rate.rate_increment === 'number' ? rate.rate_increment : Number(core.config.value(HOTORNOT_CATEGORY, 'default_rate_increment', 60)),
    'Rate-Minimum': String(minimum),
    'Ratedeck-ID': ratedeckId,
    Surcharge: String(surcharge),
  };
  if (rate.description !== undefined) out['Rate-Description'] = rate.description;
  if (rate.rate_name !== undefined) out['Rate-Name'] = rate.rate_name;
  return out;
}

/** The rates whose prefix leads `prefix` (`GET /v2/rates?prefix=`), whole, the longest prefix first. */
export function ratesForPrefix(core: Core, ratedeckId: string, prefix: string): StoredDoc[] {
  return candidateRates(core, ratedeckId, prefix).sort((a, b) => String(b.doc.prefix).length - String(a.doc.prefix).length);
}

/** The owner (`docs.account_id`) of a ratedeck's rates. */
export { ownerOf as ratedeckOwner };

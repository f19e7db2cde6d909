import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { authOf, dataObject } from '../../http/request.js';
import type { RouteDef } from '../../http/router.js';
import { ref } from '../../schema/registry.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { transaction } from '../../store/db.js';
import { getAccount, masterAccount, resellerIdOf } from '../accounts/service.js';
import { findOnlyDoc, insertDoc, updateDoc } from '../documents/store.js';
import type { Actor } from '../users/service.js';
import type { TelModule } from '../types.js';
import { billedLeg, cdrMaxRange, forEachCdr } from '../cdrs/service.js';
import { boundedWindow, gregorianToUnixMs, nowGregorian, unixMsToGregorian } from '../../util/time.js';
import { allotmentsSchema } from './schema.js';

const KIND = 'allotments';
const validate = compileValidator(allotmentsSchema);

/** An account's allotments; a 400 when it has none, as Kazoo answers. */
export function getAllotments(core: Core, accountId: string): Record<string, unknown> {
  getAccount(core, accountId);
  const d = findOnlyDoc(core, KIND, accountId);
  if (!d || Object.keys(d.doc).length === 0) throw errors.refused('allotments are not configured for this account yet');
  return d.doc;
}

/**
 * Sets an account's allotments (replacing them): its reseller's work, or the master account's or a
 * super-duper admin's; anyone else gets Kazoo's 400.
 */
export function setAllotments(core: Core, actor: Actor, accountId: string, input: Record<string, unknown>): Record<string, unknown> {
  const allotments = { ...input };
  throwIfErrors(validate.check(allotments));
  const account = getAccount(core, accountId);
  const reseller = resellerIdOf(core, account);
  if (!actor.isSuperduper && reseller !== actor.accountId && reseller !== masterAccount(core)?.id) {
    throw errors.refused('sub-accounts of non-master resellers must contact the reseller to change their allotments');
  }
  return transaction(core.db, () => {
    const current = findOnlyDoc(core, KIND, accountId);
    return (current ? updateDoc(core, current, allotments) : insertDoc(core, KIND, accountId, allotments)).doc;
  });
}

/** An allotment as its schema has it. */
interface Allotment {
  amount: number;
  cycle: string;
  group_consume?: string[];
  increment?: number;
  minimum?: number;
  no_consume_time?: number;
}

/** What an allotment consumed: its cycle (or `manual`), the window, and seconds. */
export interface Consumed {
  cycle: string;
  consumed_from: number;
  consumed_to: number;
  consumed: number;
}

const CYCLE_SECONDS: Record<string, number> = { minutely: 60, hourly: 3600, daily: 86_400, weekly: 7 * 86_400 };

/** The start of the cycle holding a moment (Gregorian seconds, UTC), as Kazoo's `cycle_start` (hourly when unknown). */
export function cycleStart(cycle: string, at: number): number {
  const d = new Date(gregorianToUnixMs(at));
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  let ms: number;
  if (cycle === 'monthly') ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  else if (cycle === 'weekly') ms = day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
  else if (cycle === 'daily') ms = day;
  else if (cycle === 'minutely') ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes());
  else ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
  return unixMsToGregorian(ms);
}

/** The end of that cycle (the next one's start), as Kazoo's `cycle_end`. */
export function cycleEnd(cycle: string, at: number): number {
  if (cycle === 'monthly') {
    const d = new Date(gregorianToUnixMs(at));
    return unixMsToGregorian(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  }
  return cycleStart(cycle, at) + (CYCLE_SECONDS[cycle] ?? 3600);
}

/** The seconds a call of `billing` seconds takes from an allotment (Kazoo's `calculate_cost` at 60 a minute). */
export function allotmentSeconds(billing: number, a: Allotment): number {
  if (billing <= (a.no_consume_time ?? 0) || billing === 0) return 0;
  const increment = a.increment || 60;
  const minimum = a.minimum ?? 0;
  return billing <= minimum ? minimum : minimum + Math.ceil((billing - minimum) / increment) * increment;
}

/**
 * What each allotment of an account consumed, from the CDRs of its calls (Kazoo's limits app
 * records a consumption when a call it let through on an allotment ends): a call counts against
 * `<direction>_<class>` or else `<class>` of its number, while the allotment (with those of its
 * `group_consume`) has seconds left. Without `created_from`/`created_to`, each allotment's current
 * cycle; with one of them, the cycle holding it; with both, that window (`manual`). Only the
 * allotments that consumed something are answered, as Kazoo's.
 */
export async function consumedAllotments(core: Core, accountId: string, from?: number, to?: number, now = nowGregorian()): Promise<Record<string, Consumed>> {
  const allotments = getAllotments(core, accountId) as Record<string, Allotment>;
  const manual = from !== undefined && to !== undefined;
  const at = from ?? to ?? now;
  const windows = new Map<string, { cycle: string; from: number; to: number }>();
  for (const [name, a] of Object.entries(allotments)) {
    windows.set(name, manual ? { cycle: 'manual', from: from!, to: to! } : { cycle: a.cycle, from: cycleStart(a.cycle, at), to: cycleEnd(a.cycle, at) });
  }
  if (windows.size === 0) return {};
  const spans = [...windows.values()];
  // one read of the CDRs spanning every allotment's window: a window asked for is bounded as a
  // CDR listing is; cycles are a month at most, but a week begun in the month before and the
  // month together span up to 38 days, which no caller chose
  const start = Math.min(...spans.map((w) => w.from));
  const end = Math.max(...spans.map((w) => w.to));
  const window = manual ? boundedWindow(start, end, cdrMaxRange(core)) : { createdFrom: gregorianToUnixMs(start), createdTo: gregorianToUnixMs(end) + 999 };
  const used = new Map<string, number>();
  const usedBy = (name: string) => used.get(name) ?? 0;
  await forEachCdr(core, accountId, window, (c) => {
    const leg = billedLeg(c.doc);
    if (!leg) return;
    const name = [`${leg.direction}_${leg.classifier}`, leg.classifier].find((n) => allotments[n] !== undefined);
    if (name === undefined) return;
    const a = allotments[name];
    const w = windows.get(name)!;
    const created = unixMsToGregorian(c.created);
    if (created < w.from || created > w.to) return;
    const group = (a.group_consume ?? []).reduce((n, member) => n + usedBy(member), 0);
    if (usedBy(name) + group > a.amount - (a.minimum ?? 0)) return;
    const seconds = allotmentSeconds(leg.billingSeconds, a);
    if (seconds > 0) used.set(name, usedBy(name) + seconds);
  });
  const answer: Record<string, Consumed> = {};
  for (const [name, seconds] of used) {
    const w = windows.get(name)!;
    answer[name] = { cycle: w.cycle, consumed_from: w.from, consumed_to: w.to, consumed: seconds };
  }
  return answer;
}

/** `created_from` / `created_to` as Kazoo's allotments read them: a positive whole number, else as if absent. */
function secondsParam(query: URLSearchParams, name: string): number | undefined {
  const n = Number(query.get(name));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

const CONSUMED = {
  type: 'object',
  description: 'by allotment',
  additionalProperties: {
    type: 'object',
    properties: {
      cycle: { type: 'string', description: "the allotment's cycle, or manual" },
      consumed_from: { type: 'integer', description: 'Gregorian seconds' },
      consumed_to: { type: 'integer', description: 'Gregorian seconds' },
      consumed: { type: 'integer', description: 'seconds' },
    },
  },
};

const PATH = 'accounts/:account_id/allotments';

const routes: RouteDef[] = [
  { method: 'GET', path: PATH, response: ref(allotmentsSchema), handler: (ctx, core) => ({ data: getAllotments(core, ctx.params.account_id) }) },
  {
    method: 'POST',
    path: PATH,
    body: allotmentsSchema,
    response: ref(allotmentsSchema),
    handler: (ctx, core) => ({ data: setAllotments(core, authOf(ctx), ctx.params.account_id, dataObject(ctx)) }),
  },
  {
    method: 'GET',
    path: `${PATH}/consumed`,
    query: [
      { name: 'created_from', description: 'the start of the window (Gregorian seconds); alone: the cycle holding it', schema: { type: 'integer' } },
      { name: 'created_to', description: 'the end of the window (Gregorian seconds); alone: the cycle holding it', schema: { type: 'integer' } },
    ],
    response: CONSUMED,
    handler: async (ctx, core) => ({
      data: await consumedAllotments(core, ctx.params.account_id, secondsParam(ctx.query, 'created_from'), secondsParam(ctx.query, 'created_to')),
    }),
  },
];

/** `/v2/accounts/{id}/allotments`: Kazoo's `cb_allotments` (what an account was given, and what its calls consumed of it). */
export const allotmentsModule: TelModule = { name: 'allotments', endpoints: ['allotments'], routes };

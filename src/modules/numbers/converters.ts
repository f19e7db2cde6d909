import type { Core } from '../../core-type.js';
import { isObject } from '../../util/json.js';
import { findAccount } from '../accounts/service.js';
import { linearExec } from '../../util/linear-regex.js';

/** The configuration category and key of the rules that write numbers as E.164 (Kazoo's). */
export const NUMBER_MANAGER_CATEGORY = 'number_manager';
export const E164_CONVERTERS_KEY = 'e164_converters';

/**
 * Kazoo's built-in `e164_converters`, tried in this order: ten NANP digits (with or without a
 * leading 1 or +1) become +1…; 011 or 00 and at least five digits become +…; eight digits or more
 * that start with 2–9 become +….
 */
export const DEFAULT_E164_CONVERTERS: Readonly<Record<string, { prefix: string }>> = {
  '^(\\+?1)?([2-9][0-9]{2}[2-9][0-9]{6})$': { prefix: '+1' },
  '^011(\\d{5,})$|^00(\\d{5,})$': { prefix: '+' },
  '^[2-9]\\d{7,}$': { prefix: '+' },
};

/**
 * The longest number the rules are tried on: no phone number comes near it, and matching costs time
 * in proportion to the number's length (a longer one is kept as written).
 */
export const MAX_CONVERTED_CHARS = 128;

/**
 * The last group of a match that took part in it, else the whole match: what Erlang's `re:run`
 * capturing `all` answers last, since it leaves out the groups after the last one that took part
 * (`^011(\d{5,})$|^00(\d{5,})$` on 01133… gives the first group's digits).
 */
function lastCapture(m: readonly (string | undefined)[]): string {
  for (let i = m.length - 1; i > 0; i--) if (m[i] !== undefined) return m[i]!;
  return m[0] ?? '';
}

/** A rule's `prefix` or `suffix` as Kazoo reads it (a binary: a number or boolean as its text). */
function text(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/**
 * The number rewritten by the first rule whose pattern matches it (the rules' own order, as
 * Kazoo keeps a JSON object's): `prefix` + the last group captured + `suffix`; unchanged when
 * none matches. The patterns run on RE2's linear-time engine (util/linear-regex.ts): one it does
 * not take (stored before such patterns were refused) matches nothing.
 */
export function applyRules(number: string, rules: unknown): string {
  if (!isObject(rules) || number.length > MAX_CONVERTED_CHARS) return number;
  for (const [pattern, rule] of Object.entries(rules)) {
    const m = linearExec(pattern, number);
    if (!m) continue;
    const r = isObject(rule) ? rule : {};
    return `${text(r.prefix)}${lastCapture(m)}${text(r.suffix)}`;
  }
  return number;
}

/**
 * A number as Kazoo's `knm_converters:normalize(Number, AccountId)` writes it (the default
 * `regex` converter): one starting with `+` is kept; another goes through the account's
 * `dial_plan` (its first matching rule), then through the `e164_converters` of the
 * `number_manager` category as the account finds them (its own settings, else its reseller's,
 * else the system's, else Kazoo's built-in ones). An extension (`1000`, `*97`) matches no rule
 * and is kept as written.
 */
export function normalizeNumber(core: Core, accountId: string, number: string): string {
  if (number.startsWith('+')) return number;
  const dialPlan = findAccount(core, accountId)?.doc.dial_plan;
  const dialed = applyRules(number, dialPlan);
  return applyRules(dialed, core.config.globalValue(accountId, NUMBER_MANAGER_CATEGORY, E164_CONVERTERS_KEY, DEFAULT_E164_CONVERTERS));
}

/**
 * A number as Kazoo's `knm_converters:normalize(Number)` writes it, for no account: through the
 * system's `e164_converters` (else Kazoo's built-in ones) only, as blacklists, click-to-call and
 * rates store and compare numbers.
 */
export function normalizeSystemNumber(core: Core, number: string): string {
  if (number.startsWith('+')) return number;
  return applyRules(number, core.config.value<unknown>(NUMBER_MANAGER_CATEGORY, E164_CONVERTERS_KEY, DEFAULT_E164_CONVERTERS));
}

/** Kazoo's `reconcile_regex` of the `number_manager` category: what a number routable off the platform looks like. */
export const DEFAULT_RECONCILE_REGEX = '^(\\+?1)?\\d{10}$|^\\+[2-9]\\d{7,}$|^011\\d*$|^00\\d*$';

/**
 * Whether a number is one the platform could route off it (Kazoo's `knm_converters:is_reconcilable`):
 * normalised for no account, it matches the system's `reconcile_regex`. An extension (`1000`) is not.
 */
export function isReconcilable(core: Core, number: string): boolean {
  const source = core.config.value<unknown>(NUMBER_MANAGER_CATEGORY, 'reconcile_regex', DEFAULT_RECONCILE_REGEX);
  const normalized = normalizeSystemNumber(core, number);
  return normalized.length <= MAX_CONVERTED_CHARS && linearExec(typeof source === 'string' ? source : DEFAULT_RECONCILE_REGEX, normalized) !== null;
}

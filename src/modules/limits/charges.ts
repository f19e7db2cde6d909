import type { Core } from '../../core-type.js';
import { LIMIT_QUANTITIES } from './schema.js';

/** The `services` configuration category holding the rates of billable items. */
export const SERVICES_CATEGORY = 'services';

/** A rate as configured under `services` → `default` → `limits` → `<item>`. */
export interface ItemRate {
  rate: number;
  single_discount_rate: number;
  cumulative_discount_rate: number;
}

/** One line of the 402 quote, as the seed shows it under `data.limits.<item>`. */
export interface ChargeItem {
  category: 'limits';
  item: string;
  /** the requested new total */
  quantity: number;
  rate: number;
  single_discount: number;
  single_discount_rate: number;
  cumulative_discount: number;
  cumulative_discount_rate: number;
}

function num(v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return Number.isFinite(n) ? Math.max(n as number, 0) : 0;
}

/** The configured rate of a limits item; an item without a rate costs nothing. */
export function itemRate(core: Core, item: string): ItemRate {
  const limits = core.config.value<Record<string, unknown>>(SERVICES_CATEGORY, 'limits', {});
  const entry = limits[item];
  if (typeof entry === 'number' || typeof entry === 'string') return { rate: num(entry), single_discount_rate: 0, cumulative_discount_rate: 0 };
  // Stryker disable next-line LogicalOperator,ConditionalExpression: a configuration document drops nulls, so no item is null
  if (!entry || typeof entry !== 'object') return { rate: 0, single_discount_rate: 0, cumulative_discount_rate: 0 };
  const e = entry as Record<string, unknown>;
  return { rate: num(e.rate), single_discount_rate: num(e.single_discount_rate), cumulative_discount_rate: num(e.cumulative_discount_rate) };
}

function quantityOf(doc: Record<string, unknown>, item: string): number {
  const v = doc[item];
  return Number.isFinite(v) ? (v as number) : 0;
}

/**
 * The charges a change from `current` to `next` incurs: every quantity that goes up and has a
 * rate above zero. Lowering or keeping a quantity, or raising a free one, charges nothing.
 * Discounts count units: one unit gets the single discount, every unit the cumulative one.
 */
export function chargesFor(
  core: Core,
  current: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, ChargeItem> {
  const out: Record<string, ChargeItem> = {};
  for (const item of LIMIT_QUANTITIES) {
    const quantity = quantityOf(next, item);
    if (quantity <= quantityOf(current, item)) continue;
    const r = itemRate(core, item);
    if (r.rate <= 0) continue;
    out[item] = {
      category: 'limits',
      item,
      quantity,
      rate: r.rate,
      single_discount: r.single_discount_rate ? 1 : 0,
      single_discount_rate: r.single_discount_rate,
      cumulative_discount: r.cumulative_discount_rate ? quantity : 0,
      cumulative_discount_rate: r.cumulative_discount_rate,
    };
  }
  return out;
}

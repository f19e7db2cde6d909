import type { Core } from '../../core-type.js';
import { isObject } from '../../util/json.js';
import { NUMBER_MANAGER_CATEGORY } from './converters.js';

/** Features Kazoo runs itself (no outside provider). */
const KAZOO_NUMBER_FEATURES = ['failover', 'force_outbound', 'prepend', 'ringback'];
/** Features an outside provider carries out (a CNAM database, an E911 one, a porting desk, SMS). */
const EXTERNAL_NUMBER_FEATURES = ['cnam', 'inbound_cnam', 'outbound_cnam', 'e911', 'port', 'sms', 'mms'];
/** Features only a super-duper admin may use. */
const ADMIN_ONLY_FEATURES = ['carrier_name'];
/** Every feature, Kazoo's default of what a system allows (`number_manager` `features.allow`). */
export const ALL_NUMBER_FEATURES = [...KAZOO_NUMBER_FEATURES, ...EXTERNAL_NUMBER_FEATURES, ...ADMIN_ONLY_FEATURES];

/** The carrier module of numbers added by hand or by a job (Kazoo's default one) and of those bought from the pool. */
export const LOCAL_CARRIER = 'knm_local';
export const POOL_CARRIER = 'knm_managed';

/** What the available features of a number depend on. */
export interface FeatureContext {
  /** the account the number is assigned to */
  accountId: string;
  /** its carrier: a local number has no outside provider (Kazoo denies it the external features) */
  carrier: string;
  usedBy?: string | null;
  /** the caller is a super-duper admin */
  isAdmin: boolean;
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/** A provider's legacy name as the feature it stands for (`knm_cnam_notifier` → `cnam`). */
function featureName(name: string): string {
  const bare = name.replace(/^(wnm_|knm_)+/, '');
  const legacy: Record<string, string> = {
    cnam_notifier: 'cnam',
    dash_e911: 'e911',
    port_notifier: 'port',
    telnyx_cnam: 'cnam',
    telnyx_e911: 'e911',
    vitelity_cnam: 'cnam',
    vitelity_e911: 'e911',
  };
  return legacy[bare] ?? bare;
}

const cleansed = (list: readonly string[]) => [...new Set(list.map(featureName))].sort();

/** `features.allow` / `features.deny` of `number_manager` as the account's reseller sets them (undefined when it does not). */
function resellerList(core: Core, accountId: string, which: 'allow' | 'deny'): string[] | undefined {
  const own = core.config.resellerSettings(accountId, NUMBER_MANAGER_CATEGORY)?.features;
  return isObject(own) ? stringList(own[which]) : undefined;
}

/**
 * The features a number may have, as Kazoo's `knm_providers:available_features` lists them: those
 * its reseller allows (else the system's `number_manager` `features.allow`, else every one), but
 * those its reseller denies (else, for a local number, the external ones unless the system's
 * `local_feature_override`), `failover` unless a trunkstore uses it, and the admin-only ones for
 * anyone but a super-duper admin.
 */
export function availableFeatures(core: Core, ctx: FeatureContext): string[] {
  const system = core.config.value<unknown>(NUMBER_MANAGER_CATEGORY, 'features', undefined);
  const systemAllow = isObject(system) ? stringList(system.allow) : undefined;
  const allowed = cleansed(resellerList(core, ctx.accountId, 'allow') ?? systemAllow ?? ALL_NUMBER_FEATURES);
  const local = ctx.carrier === LOCAL_CARRIER && core.config.value<unknown>(NUMBER_MANAGER_CATEGORY, 'local_feature_override', false) !== true;
  const denied = new Set(
    cleansed([
      ...(resellerList(core, ctx.accountId, 'deny') ?? (local ? EXTERNAL_NUMBER_FEATURES : [])),
      ...(ctx.usedBy === 'trunkstore' ? [] : ['failover']),
      ...(ctx.isAdmin ? [] : ADMIN_ONLY_FEATURES),
    ]),
  );
  return allowed.filter((f) => !denied.has(f));
}

/** Root keys of a number's document that ask for a feature (Kazoo's `FEATURES_ROOT_KEYS`). */
const FEATURE_KEYS = ['cnam', 'e911', 'failover', 'force_outbound', 'port', 'prepend', 'carrier_name', 'ringback', 'sms', 'mms'];

/** The provider behind a requested root key: what must be available for the key to be set. */
const KEY_FEATURE: Record<string, string> = { cnam: 'cnam' };

/** States in which the feature providers act (Kazoo's cnam and e911 providers: reserved, in_service, port_in). */
const ACTIVE_STATES = new Set(['reserved', 'in_service', 'port_in']);

/**
 * The features a number's document turns on, as Kazoo's providers do on saving it (tel's simulated
 * providers accept every request that passed the schema): `cnam.display_name` → `outbound_cnam`,
 * `cnam.inbound_lookup` → `inbound_cnam`, an `e911` address → `e911` (provisioned), `prepend`
 * with `enabled` → `prepend` (in service only), `failover`, `force_outbound`, `ringback` and
 * `carrier_name` as given. Answers the features, or the requested keys that are not available
 * (Kazoo refuses the whole change: 403 unauthorized).
 */
export function featuresOf(
  doc: Record<string, unknown>,
  state: string,
  available: readonly string[],
  current: Record<string, unknown>,
): { features: Record<string, unknown> } | { denied: string[] } {
  const requested = FEATURE_KEYS.filter((k) => doc[k] !== undefined && doc[k] !== null);
  const denied = requested.filter((k) => !available.includes(KEY_FEATURE[k] ?? k));
  if (denied.length > 0) return { denied };
  const features: Record<string, unknown> = {};
  const active = ACTIVE_STATES.has(state);
  const cnam = isObject(doc.cnam) ? doc.cnam : {};
  if (active && typeof cnam.display_name === 'string' && cnam.display_name !== '') features.outbound_cnam = { display_name: cnam.display_name };
  if (active && cnam.inbound_lookup === true) features.inbound_cnam = { inbound_lookup: true };
  if (active && isObject(doc.e911) && Object.keys(doc.e911).length > 0) {
    const kept = isObject(current.e911) ? current.e911 : undefined;
    features.e911 = { ...doc.e911, status: 'PROVISIONED', ...(kept?.activated_time ? { activated_time: kept.activated_time } : { activated_time: new Date().toISOString() }) };
  }
  if (state === 'in_service' && isObject(doc.prepend) && doc.prepend.enabled === true) features.prepend = doc.prepend;
  for (const k of ['failover', 'force_outbound', 'ringback', 'carrier_name']) {
    if (doc[k] !== undefined && doc[k] !== null && !(isObject(doc[k]) && Object.keys(doc[k] as object).length === 0)) features[k] = doc[k];
  }
  return { features };
}

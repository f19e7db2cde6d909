import { openDb } from './store/db.js';
import type { Core } from './core-type.js';
import { EventBus } from './delivery/bus.js';
import { canonicalCategory, ConfigService } from './modules/config/service.js';
import { MODULES } from './modules/index.js';
import type { TelModule } from './modules/types.js';
import type { JsonSchema } from './schema/validate.js';

export type { Core } from './core-type.js';

/** The endpoint names the modules serve (what path parsing needs, without building the router). */
export function endpointNames(modules: readonly TelModule[] = MODULES): ReadonlySet<string> {
  return new Set(modules.flatMap((m) => m.endpoints ?? []));
}

/**
 * The composition root: opens the database file, builds the configuration (with every module's
 * built-in settings and checks), wires what the modules declared for each other into the core,
 * then lets each module subscribe to the bus.
 */
export function openCore(file: string, modules: readonly TelModule[] = MODULES): Core {
  const db = openDb(file);
  const defaults: Record<string, Record<string, unknown>> = {};
  const configChecks: Record<string, NonNullable<TelModule['configChecks']>[string]> = {};
  const accountSchemas: Record<string, JsonSchema> = {};
  for (const m of modules) {
    for (const [category, values] of Object.entries(m.configDefaults ?? {})) {
      const name = canonicalCategory(category);
      defaults[name] = { ...(defaults[name] ?? {}), ...values };
    }
    for (const [category, check] of Object.entries(m.configChecks ?? {})) configChecks[canonicalCategory(category)] = check;
    for (const [category, schema] of Object.entries(m.accountConfigSchemas ?? {})) accountSchemas[canonicalCategory(category)] = schema;
  }
  const config = new ConfigService({ db }, defaults, configChecks, accountSchemas);
  const core: Core = {
    db,
    file,
    bus: new EventBus(),
    config,
    serving: false,
    accountTables: ['docs', 'tokens', ...modules.flatMap((m) => m.accountTables ?? [])],
    endpoints: endpointNames(modules),
    accountDocChecks: modules.flatMap((m) => m.accountDocChecks ?? []),
    tokenRules: Object.assign({}, ...modules.map((m) => m.tokenRules ?? {})),
    deliveryKinds: Object.assign({}, ...modules.map((m) => m.deliveryKinds ?? {})),
    simulations: Object.assign({}, ...modules.map((m) => m.simulations ?? {})),
  };
  for (const m of modules) m.init?.(core);
  return core;
}

/** Closes the database. */
export function closeCore(core: Core): void {
  if (core.db.isOpen) core.db.close();
}

import { openDb } from './store/db.js';
import type { Core } from './core-type.js';
import { EventBus } from './delivery/bus.js';
import { accountConfigValidators, ConfigService } from './modules/config/service.js';
import { categoriesByName } from './modules/config/categories.js';
import { MODULES } from './modules/index.js';
import type { TelModule } from './modules/types.js';
import { findAccount, resellerIdOf } from './modules/accounts/service.js';

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
  // an account's reseller supplies the middle layer of its settings (read once `core` exists)
  const resellerOf = (accountId: string) => {
    const account = findAccount(core, accountId);
    return account && resellerIdOf(core, account);
  };
  const config = new ConfigService({ db }, categoriesByName(modules.flatMap((m) => m.configs ?? [])), accountConfigValidators(modules), resellerOf);
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

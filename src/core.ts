import { openDb } from './store/db.js';
import type { Core } from './core-type.js';
import { EventBus } from './delivery/bus.js';
import { canonicalCategory, ConfigService } from './modules/config/service.js';
import { MODULES } from './modules/index.js';
import { SIMULATIONS } from './modules/simulations/registry.js';

export type { Core } from './core-type.js';

/** Opens the database file and initialises every module (bus subscriptions and the like). */
export function openCore(file: string): Core {
  const db = openDb(file);
  const core: Core = {
    db,
    file,
    bus: new EventBus(),
    config: undefined as unknown as ConfigService,
    serving: false,
    accountTables: ['docs', 'tokens', ...MODULES.flatMap((m) => m.accountTables ?? [])],
  };
  const defaults: Record<string, Record<string, unknown>> = {};
  for (const m of MODULES) {
    for (const [category, values] of Object.entries(m.configDefaults ?? {})) {
      defaults[canonicalCategory(category)] = { ...(defaults[canonicalCategory(category)] ?? {}), ...values };
    }
  }
  core.config = new ConfigService(core, defaults);
  for (const m of MODULES) Object.assign(SIMULATIONS, m.simulations);
  for (const m of MODULES) m.init?.(core);
  return core;
}

/** Closes the database. */
export function closeCore(core: Core): void {
  if (core.db.isOpen) core.db.close();
}

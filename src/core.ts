import { openDb, type Db } from './store/db.js';
import { EventBus } from './delivery/bus.js';
import { canonicalCategory, ConfigService } from './modules/config/service.js';
import { MODULES } from './modules/index.js';
import { SIMULATIONS } from './modules/simulations/registry.js';

/** The shared core both faces (HTTP and CLI) work through: one database, one bus, config. */
export interface Core {
  db: Db;
  file: string;
  bus: EventBus;
  config: ConfigService;
  /** set by `tel serve`; background workers read it to know they may run */
  serving: boolean;
  /** tables whose rows belong to an account (cleared when it is deleted), from every module */
  accountTables: string[];
}

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

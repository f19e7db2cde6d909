import type { Db } from './store/db.js';
import type { EventBus } from './delivery/bus.js';
import type { DeliveryKind } from './delivery/kinds.js';
import type { AccountDocCheck } from './modules/accounts/service.js';
import type { TokenRules } from './modules/auth/service.js';
import type { ConfigService } from './modules/config/service.js';
import type { Simulation } from './modules/simulations/registry.js';

/** Something a background worker returns so the server can stop it, finishing in-flight work. */
export interface Worker {
  stop(): Promise<void>;
}

/**
 * The shared core both faces (HTTP and CLI) work through: one database, one bus, the
 * configuration, and what the modules declared for each other (wired once, in `src/core.ts`).
 */
export interface Core {
  db: Db;
  file: string;
  bus: EventBus;
  config: ConfigService;
  /** set by `tel serve`; background workers read it to know they may run */
  serving: boolean;
  /** tables whose rows belong to an account (cleared when it is deleted), from every module */
  accountTables: readonly string[];
  /** the endpoint names tel serves: a path segment equal to one starts a resource */
  endpoints: ReadonlySet<string>;
  /** checks of account documents beyond the account schema */
  accountDocChecks: readonly AccountDocCheck[];
  /** how logins give tokens their restrictions */
  tokenRules: Readonly<TokenRules>;
  /** what the sender asks of each kind of delivery */
  deliveryKinds: Readonly<Record<string, DeliveryKind>>;
  /** simulation kinds by `data.kind` */
  simulations: Readonly<Record<string, Simulation>>;
}

import type { Core, Worker } from '../core-type.js';
import type { DeliveryKind } from '../delivery/kinds.js';
import type { Authorizer } from '../http/authorize.js';
import type { RouteDef } from '../http/router.js';
import type { AccountDocCheck } from './accounts/service.js';
import type { TokenRules } from './auth/service.js';
import type { ConfigCategory } from './config/categories.js';
import type { Simulation } from './simulations/registry.js';
import type { JsonSchema } from '../schema/validate.js';

export type { Worker } from '../core-type.js';

/**
 * One API area, declared: what it serves and what it plugs into the others. Nothing is
 * registered behind the scenes: `src/core.ts` (the services' wiring) and `src/http/app.ts` (the
 * router's) read these fields, so "where is this set?" is answered by the module's declaration.
 */
export interface TelModule {
  name: string;
  /** endpoint names this module serves (they start a resource in a path) */
  endpoints?: string[];
  routes?: RouteDef[];
  /** checks of every request that carries a checked token, before its handler (a 403 refuses) */
  authorizers?: Authorizer[];
  /** tables with an `account_id` column whose rows go when their account is deleted */
  accountTables?: string[];
  /**
   * the configuration categories this module reads, each declared once: every key's type, bounds,
   * default and meaning (the defaults `with_defaults` shows, the checks before storing, and
   * docs/configuration.md all come from here)
   */
  configs?: ConfigCategory[];
  /** the JSON Schema of an account's settings of a category it owns (`/v2/accounts/{id}/configs/{category}`) */
  accountConfigSchemas?: Record<string, JsonSchema>;
  /** checks of account documents beyond the account schema */
  accountDocChecks?: AccountDocCheck[];
  /** how logins give tokens their restrictions (the token restrictions module) */
  tokenRules?: TokenRules;
  /** the kinds of deliveries this module enqueues, and what the sender asks of each */
  deliveryKinds?: Record<string, DeliveryKind>;
  /** simulation kinds (`data.kind` of the simulations endpoint) this module provides */
  simulations?: Record<string, Simulation>;
  /** runs in every process that opens the database (server and CLI): bus subscriptions */
  init?(core: Core): void;
  /** runs only in `tel serve`: delivery senders, job executors, sweepers */
  start?(core: Core): Worker;
}

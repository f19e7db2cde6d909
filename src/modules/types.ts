import type { Core } from '../core-type.js';
import type { RouteDef } from '../http/router.js';
import type { Simulation } from './simulations/registry.js';

/** Something a background worker returns so the server can stop it, finishing in-flight work. */
export interface Worker {
  stop(): Promise<void>;
}

/** One API area: endpoint names and routes (the HTTP face), init and background workers. */
export interface TelModule {
  name: string;
  /** endpoint names this module serves (they start a resource in a path) */
  endpoints?: string[];
  routes?: RouteDef[];
  /** tables with an `account_id` column whose rows go when their account is deleted */
  accountTables?: string[];
  /** built-in settings by configuration category (the `default` node), shown with `with_defaults` */
  configDefaults?: Record<string, Record<string, unknown>>;
  /** simulation kinds (`data.kind` of the simulations endpoint) this module provides */
  simulations?: Record<string, Simulation>;
  /** runs in every process that opens the database (server and CLI): bus subscriptions */
  init?(core: Core): void;
  /** runs only in `tel serve`: delivery senders, job executors, sweepers */
  start?(core: Core): Worker;
}

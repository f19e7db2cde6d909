import type { Core } from '../core.js';
import type { RouteDef } from '../http/router.js';

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
  /** runs in every process that opens the database (server and CLI): bus subscriptions */
  init?(core: Core): void;
  /** runs only in `tel serve`: delivery senders, job executors, sweepers */
  start?(core: Core): Worker;
}

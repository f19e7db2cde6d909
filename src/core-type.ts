import type { Db } from './store/db.js';
import type { EventBus } from './delivery/bus.js';
import type { ConfigService } from './modules/config/service.js';

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

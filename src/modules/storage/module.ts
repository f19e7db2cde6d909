import type { Core } from '../../core-type.js';
import { setSynchronous, type Synchronous } from '../../store/db.js';
import type { ConfigCategory } from '../config/categories.js';
import type { TelModule } from '../types.js';

/** The configuration category of the database file itself. */
export const STORAGE_CATEGORY = 'storage';

const SYNCHRONOUS: readonly Synchronous[] = ['normal', 'full'];

/** How often a server looks whether `storage.synchronous` changed (a cached read). */
const RECHECK_MS = 2000;

/** `storage.synchronous` as configured: `normal` (the default) or `full`. */
export function configuredSynchronous(core: Core): Synchronous {
  return core.config.value<unknown>(STORAGE_CATEGORY, 'synchronous', 'normal') === 'full' ? 'full' : 'normal';
}

/** The `storage` configuration category. */
const STORAGE_CONFIG: ConfigCategory = {
  name: STORAGE_CATEGORY,
  description: 'The database file itself: what a commit survives. Every process applies it when it opens the file, a running server within 2 s.',
  keys: {
    synchronous: {
      type: 'string',
      enum: [...SYNCHRONOUS],
      default: 'normal',
      description:
        '`normal`: a commit survives a crash of tel, but a power cut or a system crash may undo the last commits (never the file\'s consistency). ' +
        '`full`: each commit is on the disk before it is answered, so it survives a power cut too, at the cost of waiting for the disk on every commit.',
    },
  },
};

/**
 * What a commit survives (`storage.synchronous`, see docs/labs.md): every process that opens the file
 * applies it to its connection; a server picks up a change within a few seconds.
 */
export const storageModule: TelModule = {
  name: 'storage',
  configs: [STORAGE_CONFIG],
  init(core) {
    setSynchronous(core.db, configuredSynchronous(core));
  },
  start(core) {
    let applied = configuredSynchronous(core);
    const timer = setInterval(() => {
      const wanted = configuredSynchronous(core);
      if (wanted === applied || !core.db.isOpen) return;
      setSynchronous(core.db, wanted);
      applied = wanted;
    }, RECHECK_MS);
    timer.unref();
    return { stop: async () => clearInterval(timer) };
  },
};

import type { Core } from '../../core-type.js';
import type { ValidationErrors } from '../../errors.js';
import { setSynchronous, type Synchronous } from '../../store/db.js';
import type { ConfigDoc } from '../config/service.js';
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

function checkStorage(doc: ConfigDoc): ValidationErrors | undefined {
  const level = doc.default?.synchronous;
  if (level === undefined || level === null || SYNCHRONOUS.includes(level as Synchronous)) return undefined;
  return {
    'default.synchronous': { enum: { message: 'Value not found in enumerated list of values', target: [...SYNCHRONOUS], value: level } },
  };
}

/**
 * What a commit survives (`storage.synchronous`, see README): every process that opens the file
 * applies it to its connection; a server picks up a change within a few seconds.
 */
export const storageModule: TelModule = {
  name: 'storage',
  configDefaults: { [STORAGE_CATEGORY]: { synchronous: 'normal' } },
  configChecks: { [STORAGE_CATEGORY]: checkStorage },
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

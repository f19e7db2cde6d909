import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { closeCore, openCore } from '../../src/core.js';
import type { Core } from '../../src/core-type.js';
import { tempDir } from './server.js';

/** A core over a fresh temporary database for each test of the enclosing describe (`env.core`). */
export function freshCoreEachTest(name: string): { core: Core } {
  const env = {} as { core: Core };
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir(`tel-${name}-`);
    env.core = openCore(join(tmp.dir, `${name}.db`));
  });
  afterEach(() => {
    closeCore(env.core);
    tmp.cleanup();
  });
  return env;
}

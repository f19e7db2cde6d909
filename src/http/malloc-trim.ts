import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The addon's file: beside the bundle (dist/), and a single executable's asset of that name. */
const MALLOC_TRIM_ADDON = 'malloc-trim.node';

/**
 * glibc's `malloc_trim(0)`, through the addon built from native/malloc-trim.c: hands back to the
 * system the free memory inside glibc's heaps, where freeing a block gives back only a heap's free
 * top. After a burst of large bodies, memory freed below blocks still in use stayed resident:
 * measured after 1,500 hostile bodies (scripts/bench/hostile-memory.mjs), RSS 156-160 MB for the
 * 30 s after against 115 before; one trim took it to 111 MB. Undefined where the addon was not
 * built (no C compiler when installing, a C library other than glibc) or cannot be loaded: the
 * server then keeps what glibc keeps.
 */
export function mallocTrim(): (() => boolean) | undefined {
  if (loaded === undefined) loaded = load() ?? null;
  return loaded ?? undefined;
}

let loaded: (() => boolean) | null | undefined;

function load(): (() => boolean) | undefined {
  try {
    const sea = require('node:sea') as typeof import('node:sea');
    const file = sea.isSea() ? fromAsset(sea) : besideTheCode();
    if (!file) return undefined;
    const addon = { exports: {} as { trim?: () => boolean } };
    try {
      process.dlopen(addon, file.path);
    } finally {
      file.done();
    }
    return typeof addon.exports.trim === 'function' ? addon.exports.trim : undefined;
  } catch {
    return undefined;
  }
}

interface AddonFile {
  path: string;
  /** Called once the library is loaded (a copy may then be removed). */
  done: () => void;
}

/** The built addon beside the bundle, or (running from source: tests) in the project's dist/. */
function besideTheCode(): AddonFile {
  const here = import.meta.url;
  const path = fileURLToPath(new URL(here.endsWith('.ts') ? `../../dist/${MALLOC_TRIM_ADDON}` : MALLOC_TRIM_ADDON, here));
  return { path, done: () => {} };
}

/**
 * A single executable's copy of the addon, written to a directory of its own (0700) for the loader
 * to map, and removed once mapped; undefined when the executable was built without it.
 */
function fromAsset(sea: typeof import('node:sea')): AddonFile | undefined {
  let bytes: ArrayBuffer;
  try {
    bytes = sea.getAsset(MALLOC_TRIM_ADDON);
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tel-addon-'));
  const path = join(dir, MALLOC_TRIM_ADDON);
  writeFileSync(path, new Uint8Array(bytes), { mode: 0o600 });
  return { path, done: () => rmSync(dir, { recursive: true, force: true }) };
}

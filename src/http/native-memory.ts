import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The addon's file: beside the bundle (dist/), and a single executable's asset of that name. */
const MEMORY_ADDON = 'memory.node';

/** What the addon built from native/memory.c does for a server's memory tidy (memory.ts). */
export interface NativeMemory {
  /**
   * glibc's `malloc_trim(0)`: hands back to the system the free memory inside glibc's heaps, where
   * freeing a block gives back only a heap's free top. After a burst of large bodies, memory freed
   * below blocks still in use stayed resident: measured after 1,500 hostile bodies
   * (scripts/bench/hostile-memory.mjs), RSS 156-160 MB for the 30 s after against 115 before; one
   * trim took it to 111 MB. Answers whether any memory was given back.
   */
  trim(): boolean;
  /**
   * Takes the pages of the executable's code and constants out of the resident set; those the
   * server runs again come back from the page cache at their next touch. Start-up maps most of
   * Node's code (each fault maps the pages around it too) while a server runs a fraction of it:
   * a server just started held 58-71 MB of file pages, nearly all its executable's, and 43 after a
   * release (16 MB of its executable's 106 once its start-up work was done), and the peak RSS of
   * `../shared/bench/api.mjs --part get` went from 98.5 to 83.1 MiB, the same requests a second.
   * Answers the bytes of address space released.
   */
  releaseCode(): number;
}

/**
 * The addon, loaded at the first call; undefined where it was not built (no C compiler when
 * installing, a C library other than glibc) or cannot be loaded: the server then keeps what glibc
 * and the kernel keep.
 */
export function nativeMemory(): NativeMemory | undefined {
  if (loaded === undefined) loaded = load() ?? null;
  return loaded ?? undefined;
}

let loaded: NativeMemory | null | undefined;

function load(): NativeMemory | undefined {
  try {
    const sea = require('node:sea') as typeof import('node:sea');
    const file = sea.isSea() ? fromAsset(sea) : besideTheCode();
    if (!file) return undefined;
    const addon = { exports: {} as Partial<NativeMemory> };
    try {
      process.dlopen(addon, file.path);
    } finally {
      file.done();
    }
    const { trim, releaseCode } = addon.exports;
    return typeof trim === 'function' && typeof releaseCode === 'function' ? { trim, releaseCode } : undefined;
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
  const path = fileURLToPath(new URL(here.endsWith('.ts') ? `../../dist/${MEMORY_ADDON}` : MEMORY_ADDON, here));
  return { path, done: () => {} };
}

/**
 * A single executable's copy of the addon, written to a directory of its own (0700) for the loader
 * to map, and removed once mapped; undefined when the executable was built without it.
 */
function fromAsset(sea: typeof import('node:sea')): AddonFile | undefined {
  let bytes: ArrayBuffer;
  try {
    bytes = sea.getAsset(MEMORY_ADDON);
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tel-addon-'));
  const path = join(dir, MEMORY_ADDON);
  writeFileSync(path, new Uint8Array(bytes), { mode: 0o600 });
  return { path, done: () => rmSync(dir, { recursive: true, force: true }) };
}

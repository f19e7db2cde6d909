// Builds dist/memory.node from native/memory.c: the one native piece of tel, with which a server
// hands glibc's free heap memory back to the system and takes the code it does not run out of its
// resident set (src/http/native-memory.ts). It needs a C compiler ($CC, else cc) and glibc; without
// them tel works the same and a server keeps what glibc and the kernel keep, so a failed build is a
// note, never an error. Skipped when the addon is newer than its source and this script.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'native/memory.c');
export const memoryAddon = join(root, 'dist/memory.node');

/** Node's C headers: those of the Node running this script, else the project's Node package's. */
function nodeHeaders() {
  const candidates = [
    join(dirname(dirname(process.execPath)), 'include', 'node'),
    join(root, 'node_modules', `node-${process.platform}-${process.arch}`, 'include', 'node'),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'node_api.h')));
}

/**
 * Builds the addon when it is missing or older than its source; answers {built, skipped, note}:
 * `note` says why there is no addon (one sentence), when there is none.
 */
export function buildMemoryAddon() {
  const inputs = [statSync(source).mtimeMs, statSync(fileURLToPath(import.meta.url)).mtimeMs];
  if (existsSync(memoryAddon) && inputs.every((t) => t < statSync(memoryAddon).mtimeMs)) return { built: true, skipped: true };
  if (process.platform !== 'linux') return { built: false, note: 'glibc and /proc are Linux\'s only' };
  const headers = nodeHeaders();
  if (!headers) return { built: false, note: "Node's C headers were not found (npm install brings them)" };
  mkdirSync(dirname(memoryAddon), { recursive: true });
  // Written then renamed: a server starting meanwhile maps the old file or the new one.
  const tmp = `${memoryAddon}.${process.pid}.tmp`;
  const cc = process.env.CC || 'cc';
  const run = spawnSync(cc, ['-O2', '-Wall', '-shared', '-fPIC', '-I', headers, '-o', tmp, source], { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    rmSync(tmp, { force: true });
    const first = (run.stderr || '').trim().split('\n')[0];
    const why = run.error ? `${cc} was not found` : `${cc} failed${first ? `: ${first}` : ` (exit ${run.status})`}`;
    return { built: false, note: why };
  }
  renameSync(tmp, memoryAddon);
  return { built: true, skipped: false };
}

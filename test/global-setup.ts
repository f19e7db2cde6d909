import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles the CLI once (skipped when dist/tel.mjs is fresh) so tests can spawn the real `tel`. */
export default function setup(): void {
  try {
    execFileSync(process.execPath, ['scripts/bundle.mjs', '--quiet'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    throw new Error('bundling dist/tel.mjs failed (errors above); the tests that spawn `tel` need it.');
  }
}

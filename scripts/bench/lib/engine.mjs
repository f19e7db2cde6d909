// tel's own modules, bundled from the sources into a benchmark's temporary directory, so that a
// benchmark can write events and rows into a database file the way the offline CLI does.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Bundles `exports` (lines of `export { … } from './src/….ts'`) into `dir` and imports it. */
export async function loadEngine(dir, exports) {
  const out = await build({
    stdin: { contents: exports, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    logLevel: 'silent',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    alias: { 'react-devtools-core': join(root, 'scripts/stubs/react-devtools-core.mjs') },
    external: ['node:*'],
  });
  const file = join(dir, 'engine.mjs');
  writeFileSync(file, out.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

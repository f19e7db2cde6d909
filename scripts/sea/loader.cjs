'use strict';
// Main script of the single executable. Node 24 starts a SEA only from CommonJS, so this
// loader hands the ESM code (SEA assets) to the ordinary module loader: module hooks serve each
// asset under a file: URL beside the executable (import.meta.url and createRequire keep working,
// node:* imports resolve as usual), and a vm.Script that uses the main context's loader performs
// the import().
//
// The executable starts from start/tel.mjs: the bundle split in chunks (scripts/bundle.mjs), so
// that `tel --help` compiles the code every start needs and not the 2 MB of the commands (7 ms
// of its 50). The asset tel.mjs is the same code in one file, which a server's job thread loads
// (src/jobs/thread.ts).
const { getAsset, getAssetKeys } = require('node:sea');
const { registerHooks, enableCompileCache } = require('node:module');
const { dirname, isAbsolute, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

// V8's compiled code of the bundle is kept between runs in the user's cache directory (Node
// checks it against the source): start-up drops by a third. $HOME is what os.homedir() reads
// first; node:os is loaded only without it (0.5 ms of a start). A cache directory that is not
// absolute (an empty $HOME) would be the working directory's: none then.
try {
  const cache = join(process.env.XDG_CACHE_HOME || join(process.env.HOME || require('node:os').homedir(), '.cache'), 'tel', 'compile-cache');
  if (isAbsolute(cache)) enableCompileCache(cache);
} catch {
  /* no cache directory: the bundle is compiled each time */
}

const beside = pathToFileURL(join(dirname(process.execPath), '/')).href;
const modules = new Set(getAssetKeys().filter((key) => key.endsWith('.mjs')));

/** The asset a URL names (`start/chunks/….mjs`), or undefined. */
function assetAt(url) {
  const key = url.startsWith(beside) ? url.slice(beside.length) : undefined;
  return key !== undefined && modules.has(key) ? key : undefined;
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    // the bundle imports its chunks by relative paths
    const url = /^(\.|file:)/.test(specifier) ? new URL(specifier, context.parentURL).href : undefined;
    if (url && assetAt(url)) return { url, format: 'module', shortCircuit: true };
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    const key = assetAt(url);
    if (key) return { format: 'module', source: getAsset(key, 'utf8'), shortCircuit: true };
    return nextLoad(url, context);
  },
});

const start = new vm.Script(`import(${JSON.stringify(`${beside}start/tel.mjs`)})`, {
  filename: 'tel-sea-loader',
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
start.runInThisContext().catch((err) => {
  process.exitCode = 1;
  console.error(err);
});

'use strict';
// Main script of the single executable. Node 24 starts a SEA only from CommonJS, so this
// loader hands the ESM bundle (the SEA asset "tel.mjs") to the ordinary module loader:
// module hooks serve the asset under a file: URL beside the executable (import.meta.url
// and createRequire keep working, node:* imports resolve as usual), and a vm.Script that
// uses the main context's loader performs the import().
const { getAsset } = require('node:sea');
const { registerHooks, enableCompileCache } = require('node:module');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

// V8's compiled code of the bundle is kept between runs in the user's cache directory (Node
// checks it against the source): start-up drops by a third.
try {
  enableCompileCache(join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tel', 'compile-cache'));
} catch {
  /* no cache directory: the bundle is compiled each time */
}

const bundleUrl = pathToFileURL(join(dirname(process.execPath), 'tel.mjs')).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === bundleUrl) return { url: bundleUrl, format: 'module', shortCircuit: true };
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (url === bundleUrl) return { format: 'module', source: getAsset('tel.mjs', 'utf8'), shortCircuit: true };
    return nextLoad(url, context);
  },
});

const start = new vm.Script(`import(${JSON.stringify(bundleUrl)})`, {
  filename: 'tel-sea-loader',
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
start.runInThisContext().catch((err) => {
  process.exitCode = 1;
  console.error(err);
});

#!/usr/bin/env node
// Bundles src/main.ts into dist/tel.mjs (one ESM file, dependencies inlined), and builds the
// addon beside it (scripts/native.mjs). Skips the work when the bundle is newer than every input,
// unless --force.
//
//   node scripts/bundle.mjs [--force] [--sourcemap] [--quiet]
//
// TEL_BUNDLE_MINIFY=0 keeps names as written (for CPU profiles: scripts/bench/delivery-cost.mjs
// --cpu-prof); with --force, as a bundle made minified looks fresh.
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMemoryAddon } from './native.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const defaultEntry = join(root, 'src/main.ts');
const defaultOutfile = join(root, 'dist/tel.mjs');
const stubDir = join(root, 'scripts/stubs');

/**
 * Node's built-in modules: the running Node's list, and those only reachable as `node:…` that an
 * older Node (which may run this script) does not list.
 */
const BUILTINS = [...new Set([...builtinModules, 'node:sea', 'node:sqlite', 'node:test', 'node:test/reporters'])];

/**
 * Node's built-ins as CommonJS stand-ins (`module.exports = process.getBuiltinModule(…)`). In ESM
 * output esbuild hoists every `import … from 'node:…'` to the top of the bundle, so each start
 * would load every built-in any command uses, and build an ES module of each that reads all of its
 * exports (node:fs's streams, node:process's stdin): 17 ms of `tel --help`. A stand-in is required
 * where the module that imports it is first run, so a command loaded lazily loads its built-ins
 * with it.
 */
const builtinsWhereUsed = {
  name: 'builtins-where-used',
  setup(build) {
    // `node:fs`, and `fs` as older packages write it
    build.onResolve({ filter: new RegExp(`^(node:)?(${BUILTINS.join('|')})$`) }, (args) => ({
      path: args.path.startsWith('node:') ? args.path : `node:${args.path}`,
      namespace: 'builtin',
    }));
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: LOADED_AT_FIRST_USE.has(args.path) ? firstUseStandIn(args.path) : `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Built-ins loaded only when one of their exports is first read, because every start imports them
 * (commander does) and does not use them: node:child_process, with node:net and the streams it
 * loads, is for commander's executable subcommands, which tel has none of (2.5 ms); importing
 * node:util loads three of its own modules and node:worker_threads (1.5 ms). Only plain
 * namespaces of functions belong here: an export is read from the real module each time, and a
 * function called on the stand-in (`util.format(…)`) gets the stand-in as `this`.
 */
const LOADED_AT_FIRST_USE = new Set(['node:child_process', 'node:util']);

/** A stand-in with a getter for each export of the built-in `id` (the Node that bundles is the Node that runs). */
function firstUseStandIn(id) {
  const names = Object.keys(process.getBuiltinModule(id));
  return [
    'let real;',
    `for (const name of ${JSON.stringify(names)}) {`,
    `  Object.defineProperty(exports, name, { enumerable: true, get: () => (real ??= process.getBuiltinModule(${JSON.stringify(id)}))[name] });`,
    '}',
  ].join('\n');
}

/** Latest modification time (ms) of dir and anything under it, 0 when it does not exist. */
function newestMtimeMs(dir) {
  let newest;
  let entries;
  try {
    // A directory's own time changes when a file in it is removed or renamed.
    newest = statSync(dir).mtimeMs;
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtimeMs(p));
    else if (e.isFile()) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** True when outfile is newer than the sources, the stubs, this script and the lockfile. */
export function bundleIsFresh(outfile = defaultOutfile) {
  if (!existsSync(outfile)) return false;
  const built = statSync(outfile).mtimeMs;
  const inputs = [
    newestMtimeMs(join(root, 'src')),
    newestMtimeMs(stubDir),
    statSync(fileURLToPath(import.meta.url)).mtimeMs,
    existsSync(join(root, 'package-lock.json')) ? statSync(join(root, 'package-lock.json')).mtimeMs : 0,
  ];
  return inputs.every((t) => t < built);
}

/**
 * Builds dist/tel.mjs (or outfile from entry): one ESM file, what bin/tel.js runs and what a
 * server's job thread loads. With `splitInto` (a directory, emptied first), builds the code the
 * single executable starts from instead: `tel.mjs` there holds what every start needs, and the
 * modules of each command are chunks (`chunks/….mjs`) imported when the command runs, so that a
 * start compiles only its own part of the code (see scripts/sea/loader.cjs).
 * Returns {skipped, bytes, ms, files}: files are the paths written, relative to the outfile's
 * directory or to `splitInto`.
 */
export async function bundle({ force = false, sourcemap = false, entry = defaultEntry, outfile = defaultOutfile, splitInto } = {}) {
  const started = performance.now();
  if (!splitInto && !force && bundleIsFresh(outfile)) return { skipped: true, bytes: statSync(outfile).size, ms: performance.now() - started, files: [basename(outfile)] };
  if (!existsSync(entry)) throw new Error(`the entry ${relative(root, entry)} does not exist`);

  // Loaded lazily so that the fresh case stays well under a second.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    ...(splitInto
      ? { entryPoints: { tel: entry }, outdir: splitInto, splitting: true, outExtension: { '.js': '.mjs' }, chunkNames: 'chunks/[hash]' }
      : { entryPoints: [entry], outfile }),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    minify: process.env.TEL_BUNDLE_MINIFY !== '0',
    sourcemap: sourcemap ? 'linked' : false,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    // ink imports react-devtools-core only when DEV is set; external, esbuild would
    // hoist a static import of a package that is not installed.
    alias: { 'react-devtools-core': join(stubDir, 'react-devtools-core.mjs') },
    plugins: [builtinsWhereUsed],
    metafile: Boolean(splitInto),
  });

  // ESM output has no require(): esbuild resolves each one at build time (the built-ins to the
  // stand-ins above), and makes one it cannot (a name computed at run time) throw when it runs.
  const unresolved = result.outputFiles.find((file) => file.text.includes('Dynamic require of'));
  if (unresolved) throw new Error(`${relative(root, unresolved.path)} has a require() esbuild cannot resolve, which would fail when it runs`);

  const outdir = splitInto ?? dirname(outfile);
  const outputs = splitInto ? await joinStartChunks(esbuild, result, join(splitInto, 'tel.mjs')) : result.outputFiles;
  if (splitInto) rmSync(splitInto, { recursive: true, force: true });
  let bytes = 0;
  const files = [];
  for (const file of outputs) {
    mkdirSync(dirname(file.path), { recursive: true });
    // Write then rename: processes starting meanwhile read either the old or the new bundle.
    const tmp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, file.path);
    if (!file.path.endsWith('.map')) bytes += file.contents.length;
    files.push(relative(outdir, file.path));
  }
  if (!splitInto && !sourcemap) rmSync(`${outfile}.map`, { force: true });
  return { skipped: false, bytes, ms: performance.now() - started, files };
}

/**
 * The split build's start in two modules instead of fifteen. esbuild puts the code the start
 * imports in one chunk per set of entries that reach it (program.ts with every command that
 * imports commander, …), and each chunk is one more module to resolve, load and link at every
 * start: joined, `dist/tel --help` took 96.5 ms instead of 99.8 (medians of 40 interleaved
 * runs). The start's chunks become one, `chunks/start.mjs`, which exports each chunk's exports
 * under the chunk's name; every other file imports them from it, so each module's code still
 * runs once. Takes and returns esbuild's output files (`entry` the start's path).
 */
async function joinStartChunks(esbuild, result, entry) {
  const byPath = new Map(result.outputFiles.map((file) => [file.path, file]));
  const meta = new Map(Object.entries(result.metafile.outputs).map(([path, output]) => [resolve(path), output]));
  const startChunks = new Set();
  const visit = (path) => {
    for (const imported of meta.get(path)?.imports ?? []) {
      const chunk = resolve(imported.path);
      if (imported.kind === 'import-statement' && !startChunks.has(chunk)) {
        startChunks.add(chunk);
        visit(chunk);
      }
    }
  };
  visit(entry);
  if (startChunks.size < 2) return result.outputFiles;

  const core = join(dirname(entry), 'chunks', 'start.mjs');
  /** `export`'s name for a chunk's export in the joined module. */
  const joinedName = (chunk, name) => `_${basename(chunk, '.mjs').replace(/\W/g, '_')}$${name}`;
  const exportsOf = (chunk) => meta.get(chunk)?.exports ?? [];
  const specifier = (from, to) => {
    const path = relative(dirname(from), to);
    return path.startsWith('.') ? path : `./${path}`;
  };
  const joined = [...startChunks]
    .map((chunk) => `export { ${exportsOf(chunk).map((name) => `${name} as ${joinedName(chunk, name)}`).join(', ')} } from ${JSON.stringify(chunk)};`)
    .join('\n');
  const others = result.outputFiles.filter((file) => !startChunks.has(file.path) && !file.path.endsWith('.map'));
  /** A module of a start chunk's exports, read from the joined module at `from`. */
  const throughStart = (chunk, from) =>
    `export { ${exportsOf(chunk).map((name) => `${joinedName(chunk, name)} as ${name}`).join(', ')} } from ${JSON.stringify(from)};`;

  const second = await esbuild.build({
    entryPoints: [
      { in: 'joined:', out: relative(dirname(entry), core).replace(/\.mjs$/, '') },
      ...others.map((file) => ({ in: `file:${file.path}`, out: relative(dirname(entry), file.path).replace(/\.mjs$/, '') })),
    ],
    outdir: dirname(entry),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    minify: process.env.TEL_BUNDLE_MINIFY !== '0',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'join-start-chunks',
        setup(build) {
          build.onResolve({ filter: /^(joined|file):/ }, (args) => ({ path: args.path.replace(/^\w+:/, '') || core, namespace: args.path.split(':')[0] }));
          build.onResolve({ filter: /.*/ }, (args) => {
            const path = resolve(args.resolveDir, args.path);
            if (args.kind === 'import-statement' && startChunks.has(path)) {
              // read into the joined module; elsewhere, imported from it
              return { path, namespace: args.namespace === 'joined' || args.namespace === 'start' ? 'start' : 'through-start' };
            }
            // every other file stays a module of its own (its path made relative below)
            return { path, external: true };
          });
          build.onLoad({ filter: /.*/, namespace: 'joined' }, () => ({ contents: joined, loader: 'js', resolveDir: dirname(core) }));
          build.onLoad({ filter: /.*/, namespace: 'file' }, (args) => ({ contents: byPath.get(args.path).text, loader: 'js', resolveDir: dirname(args.path) }));
          build.onLoad({ filter: /.*/, namespace: 'start' }, (args) => ({ contents: byPath.get(args.path).text, loader: 'js', resolveDir: dirname(args.path) }));
          build.onLoad({ filter: /.*/, namespace: 'through-start' }, (args) => ({ contents: throughStart(args.path, core), loader: 'js', resolveDir: dirname(args.path) }));
        },
      },
    ],
  });
  // A start chunk another module imports dynamically is still found at its path, as its exports
  // read from the joined module.
  const stubs = [...startChunks].map((chunk) => ({ path: chunk, text: throughStart(chunk, specifier(chunk, core)) }));
  const known = [...byPath.keys(), core];
  return [...second.outputFiles, ...stubs].map((file) => {
    let text = file.text;
    for (const path of known) text = text.replaceAll(JSON.stringify(path), JSON.stringify(specifier(file.path, path)));
    return { path: file.path, text, contents: Buffer.from(text) };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = new Set(process.argv.slice(2));
  const quiet = args.has('--quiet');
  try {
    const r = await bundle({ force: args.has('--force'), sourcemap: args.has('--sourcemap') });
    if (!quiet) {
      const what = r.skipped ? 'up to date' : 'bundled';
      console.log(`dist/tel.mjs ${what} (${(r.bytes / 1024 / 1024).toFixed(2)} MB, ${Math.round(r.ms)} ms)`);
    }
    const addon = buildMemoryAddon();
    if (addon.note && !quiet) console.log(`dist/memory.node not built (${addon.note}): a server will keep the memory glibc keeps free in its heaps, and the code start-up mapped.`);
  } catch (err) {
    const errors = err?.errors;
    if (Array.isArray(errors) && errors.length > 0) {
      for (const e of errors.slice(0, 20)) {
        const where = e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : '';
        console.error(`${where}${e.text}`);
      }
      console.error('bundling failed.');
    } else {
      console.error(`bundling failed: ${err?.message ?? err}`);
    }
    process.exit(1);
  }
}

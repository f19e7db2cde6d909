#!/usr/bin/env node
// Builds dist/tel: a Node single executable application carrying the project's Node 24
// and the bundle. Nothing is downloaded.
//
//   node scripts/build.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './bundle.mjs';
import { buildMemoryAddon, memoryAddon } from './native.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const output = join(dist, 'tel');
// The fuse Node looks for to know a SEA blob was injected (Node's SEA documentation).
const seaFuse = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** The Node binary npm installed for the project (node-<platform>-<arch>), or null. */
export function projectNodeBinary() {
  const candidate = join(root, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
  return existsSync(candidate) ? candidate : null;
}

/** True when `strip` is on PATH. */
function hasStrip() {
  return spawnSync('strip', ['--version'], { stdio: 'ignore' }).status === 0;
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

async function main() {
  const started = performance.now();
  const node = projectNodeBinary();
  if (!node) fail(`the project's Node binary (node-${process.platform}-${process.arch}) is not installed: run \`npm install\` first.`);

  const b = await bundle({ force: true });
  console.log(`bundled dist/tel.mjs (${(b.bytes / 1024 / 1024).toFixed(2)} MB)`);
  // The executable starts from the same code split in chunks (see scripts/sea/loader.cjs); built
  // per build, as the blob, so that two builds at once do not read each other's.
  const split = join(dist, `.sea-${process.pid}`);
  const s = await bundle({ force: true, splitInto: split });
  const addon = buildMemoryAddon();
  if (addon.note) console.log(`the executable goes without dist/memory.node (${addon.note}): its servers keep the memory glibc keeps free in its heaps, and the code start-up mapped.`);

  // Paths in the SEA configuration are relative to the working directory (the root).
  const config = {
    main: 'scripts/sea/loader.cjs',
    output: `dist/.tel-${process.pid}.blob`,
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: false,
    execArgv: ['--disable-warning=ExperimentalWarning', '--max-semi-space-size=8', '--no-maglev', '--minimum-invocations-after-ic-update=100'],
    // tel.mjs, the bundle in one file, is what a job thread loads (src/jobs/thread.ts); start/…, the start.
    // memory.node, the addon a server loads (src/http/native-memory.ts), when it was built.
    assets: {
      'tel.mjs': 'dist/tel.mjs',
      ...(addon.built ? { 'memory.node': relative(root, memoryAddon) } : {}),
      ...Object.fromEntries(s.files.map((file) => [`start/${file}`, relative(root, join(split, file))])),
    },
  };
  // Written under a per-build name for the blob step, then kept as dist/sea-config.json.
  const configPath = join(dist, 'sea-config.json');
  const buildConfigPath = join(dist, `.sea-config-${process.pid}.json`);
  writeFileSync(buildConfigPath, `${JSON.stringify(config, null, 2)}\n`);
  // The blob must come from the very Node it is injected into.
  const blob = spawnSync(node, ['--experimental-sea-config', relative(root, buildConfigPath)], { cwd: root, encoding: 'utf8' });
  renameSync(buildConfigPath, configPath);
  rmSync(split, { recursive: true, force: true });
  if (blob.status !== 0) fail(`preparing the SEA blob failed:\n${blob.stdout}${blob.stderr}`);

  // Built beside the result and renamed at the end, so a running dist/tel is never overwritten.
  const work = join(dist, `.tel-${process.pid}.tmp`);
  try {
    copyFileSync(node, work);
    chmodSync(work, 0o755);
    if (hasStrip()) execFileSync('strip', [work], { stdio: 'inherit' });
    else console.log('strip not found: the executable keeps its symbols');

    const { inject } = await import('postject');
    // postject warns about ELF note sections it does not need ("Can't find string offset"): noise.
    const { log, warn } = console;
    console.log = console.warn = () => {};
    try {
      await inject(work, 'NODE_SEA_BLOB', readFileSync(join(root, config.output)), { sentinelFuse: seaFuse });
    } finally {
      Object.assign(console, { log, warn });
    }
    chmodSync(work, 0o755);
    renameSync(work, output);
  } finally {
    rmSync(work, { force: true });
    rmSync(join(root, config.output), { force: true });
  }

  const mb = (statSync(output).size / 1024 / 1024).toFixed(1);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`built dist/tel (${mb} MB) in ${seconds} s`);
}

main().catch((err) => fail(`build failed: ${err?.message ?? err}`));

#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=2621440 MALLOC_TRIM_THRESHOLD_=2621440 node --max-semi-space-size=8 --no-maglev --minimum-invocations-after-ic-update=100
// The young generation is capped at 8 MiB a semi-space: on a machine with much memory V8 lets it
// grow to 64 MiB, which a busy server fills with garbage before collecting (100+ MB of RSS). At 4
// a delivery cost a quarter more CPU once warm (more is promoted and marked), for no lower peak
// under authenticated GETs (101 MiB either way); at 16, 39% more.
// Hot functions go from the baseline tier straight to the optimising compiler (no Maglev), and
// are optimised again 100 calls, not 500, after their type feedback last changed: a server's
// code is the same few paths for hours, and without these a delivery of the webhooks yardstick
// cost 1.34 times the CPU over its first 13,000 calls (scripts/bench/delivery-cost.mjs, A/B). Both
// flags are known to older Nodes too, so that the version check below still speaks to them.
// V8 optimises hot functions on its compiler threads (its default), not on the event loop: compiled
// there, a function held the loop up to 37 ms, and the listings of scripts/bench/scale.mjs 38-47
// ms; on the compiler threads, 20 at most. Their glibc arenas hold some 8 MB more, which a server
// finds by taking the code it does not run out of its resident set (src/http/native-memory.ts).
// glibc's malloc hands blocks of 2.5 MiB and more (a large body) back to the system when freed,
// and the free top of its heaps past 2.5 MiB: by default it raises both thresholds as such blocks
// are freed, and keeps them (after 1,500 hostile bodies, a server stayed at 174 MB; with the
// thresholds at 128 KiB it went back to 121, at 4 MiB to 146). Not lower: a password hash's 2 MiB
// block, mapped and unmapped each time, cost 1.1-1.4 ms of page faults a hash (a quarter of it;
// 300 users took 2.3 s, not 1.75).
// The `tel` command: checks the Node version, then runs the bundled CLI (dist/tel.mjs). Built-ins
// are taken with process.getBuiltinModule: an `import` of one builds an ES module of all of its
// exports (node:fs's streams and promises), which `tel --help` does not use.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `tel needs Node 24, which the project installs for itself (this is Node ${process.versions.node}): ` +
      'run it as `npx tel …` or `npm run tel -- …`.\n',
  );
  process.exit(2);
}

const bundleUrl = new URL('../dist/tel.mjs', import.meta.url);
if (!process.getBuiltinModule('node:fs').existsSync(bundleUrl)) {
  // npm install bundles (the prepare script), so this means dist/ was removed or the install skipped scripts.
  process.stderr.write('tel is not built yet (dist/tel.mjs is missing): run `npm run bundle` first, or use `npm run tel -- …`, which bundles.\n');
  process.exit(2);
}

// V8's compiled code of the bundle is kept between runs in the user's cache directory (Node
// checks it against the source).
try {
  const { enableCompileCache } = process.getBuiltinModule('node:module');
  const { homedir } = process.getBuiltinModule('node:os');
  const { join } = process.getBuiltinModule('node:path');
  enableCompileCache(join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tel', 'compile-cache'));
} catch {
  /* no cache directory: the bundle is compiled each time */
}

await import(bundleUrl.href);

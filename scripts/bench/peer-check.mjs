// What noting the address each webhook connection reached costs (so that what an endpoint on this
// machine or a private network answers is shown to super-duper admins only): the check of each
// new connection's peer, and the lookup each try makes, in µs of CPU: to be read beside the
// 300 µs or so of CPU a delivery costs a server (webhooks.mjs: over 3,000 a second on one core).
// Prints one JSON line.
//   npx node scripts/bench/peer-check.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle } from '../bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'tel-peer-'));
const N = 1_000_000;
const cpuUs = (fn) => {
  const a = process.cpuUsage();
  fn();
  const b = process.cpuUsage(a);
  return b.user + b.system;
};
try {
  const outfile = join(dir, 'private-networks.mjs');
  await bundle({ entry: join(root, 'src/delivery/private-networks.ts'), outfile, force: true });
  const { notingPeers, reachedNonPublic } = await import(pathToFileURL(outfile).href);
  const connect = notingPeers((_o, cb) => cb(null, { remoteAddress: '127.0.0.1' }));
  // a thousand hosts noted, as a lab with that many private endpoints would have
  for (let i = 0; i < 1000; i++) connect({ hostname: `host-${i}.lab` }, () => {});
  const connectUs = cpuUs(() => {
    for (let i = 0; i < N; i++) connect({ hostname: `host-${i % 1000}.lab` }, () => {});
  });
  const hosts = Array.from({ length: 2000 }, (_, i) => `host-${i}.lab`);
  let found = 0;
  const lookupUs = cpuUs(() => {
    for (let i = 0; i < N; i++) if (reachedNonPublic(hosts[i % 2000])) found++;
  });
  console.log(JSON.stringify({ bench: 'peer-check', per_connection_us: Number((connectUs / N).toFixed(3)), per_try_us: Number((lookupUs / N).toFixed(3)), found }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

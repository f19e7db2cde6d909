// Shared pieces of the HTTP benchmarks: start a server process, keep requests in flight.
import { Worker } from 'node:worker_threads';
import { fork, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

/** The V8 flags tel runs with (bin/tel.js's shebang, the npm scripts, the single binary). */
export const TEL_NODE_FLAGS = ['--max-semi-space-size=8', '--no-maglev', '--minimum-invocations-after-ic-update=100'];

/** The environment tel runs with (the same shebang and npm scripts): glibc's malloc hands large blocks back. */
export const TEL_NODE_ENV = { MALLOC_MMAP_THRESHOLD_: '2621440', MALLOC_TRIM_THRESHOLD_: '2621440' };

/**
 * A load benchmark's `--seconds` and `--connections` (defaults given as strings), checked, on the
 * project's Node 24: a usage error ends the process with code 2.
 */
export function loadOptions(script, defaults) {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: defaults.seconds }, connections: { type: 'string', default: defaults.connections } } });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  if (!(seconds > 0 && seconds <= 600) || !(Number.isInteger(connections) && connections > 0 && connections <= 1000)) {
    console.error('--seconds must be in (0, 600] and --connections in 1..1000.');
    process.exit(2);
  }
  if (Number(process.versions.node.split('.')[0]) < 24) {
    console.error(`the benchmark needs the project's Node 24 (this is ${process.versions.node}): run it with \`npx node ${script}\`.`);
    process.exit(2);
  }
  return { seconds, connections };
}

/** Whether processes can be pinned: tel to the first CPU, everything else to the second. */
export const pinned = cpus().length >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** Pins a process (all its threads) to `cpu`, when pinning is possible. */
export function pin(cpu, pid) {
  if (pinned) spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

/**
 * A webhook consumer in its own process (pinned to the second CPU), written into `dir`: answers
 * every request 200 at once and counts them. Resolves with its port, `delivered()` (the count so
 * far) and the child process.
 */
export async function startCountingSink(dir) {
  const file = join(dir, 'counting-sink.cjs');
  writeFileSync(
    file,
    `const { createServer } = require('node:http');
     let n = 0;
     const s = createServer((req, res) => { req.resume(); req.on('end', () => { n++; res.end('ok'); }); });
     s.keepAliveTimeout = 60000;
     s.listen(0, '127.0.0.1', () => process.send({ port: s.address().port }));
     process.on('message', () => process.send({ n }));`,
  );
  const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  pin(1, child.pid);
  const { port } = await new Promise((r) => child.once('message', r));
  const delivered = () => new Promise((r) => (child.once('message', (m) => r(m.n)), child.send('n')));
  return { port, delivered, child };
}

/** Processes started here, stopped by `stopAll` (also on errors). */
const children = new Set();

/** Starts `node …args` and resolves with it and the first http://127.0.0.1:port its stdout prints. */
export function startProcess(args, { cwd, env = {} } = {}) {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...TEL_NODE_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 15 s from ${args.join(' ')}: ${out}${err}`)), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, url: m[0] });
      }
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${err}`)));
  });
}

/** Stops every process `startProcess` started. */
export function stopAll() {
  for (const child of children) child.kill('SIGTERM');
}

/**
 * Keeps `connections` GETs of `path` (or `method` requests with `body`) in flight for `ms`;
 * answers requests/s, the count, errors (anything but 200) and, with `latencies`, p50/p99 in ms.
 */
export async function loadGet(url, path, headers, { connections, ms, latencies = false, maxSamples = 5_000_000, method = 'GET', body }) {
  const pool = new Pool(url, { connections, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const samples = [];
  let done = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + ms;
  async function worker() {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await pool.request({ path, method, headers, body });
        await res.body.dump({ limit: Infinity });
        if (res.statusCode !== 200) errors += 1;
      } catch {
        errors += 1;
      }
      done += 1;
      if (latencies && samples.length < maxSamples) samples.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = performance.now() - started;
  await pool.close();
  samples.sort((a, b) => a - b);
  const pct = (p) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))] ?? NaN;
  return { rps: (done / elapsed) * 1000, done, errors, p50: pct(50), p99: pct(99) };
}

/** Resident and peak memory of a process, in MB. */
export function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Runs a benchmark's `main`, stopping its processes on Ctrl-C, SIGTERM or a failure. */
export function runMain(main) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopAll();
      process.exit(130);
    });
  }
  main().catch((err) => {
    console.error(`benchmark failed: ${err.message}`);
    stopAll();
    process.exit(1);
  });
}

/** A JSON client of a tel server (`token`: its X-Auth-Token): answers status, text and the parsed body. */
export function client(url, token) {
  return async (method, path, data) => {
    const res = await fetch(url + path, {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { 'X-Auth-Token': token } : {}) },
      body: data === undefined ? undefined : JSON.stringify({ data }),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
}

/**
 * The server's own view of its event loop (lib/loop-delay.cjs): `reset()` starts a span, `read()`
 * answers its longest delay since then and the most CPU the main thread spent without a turn of
 * the loop (ms), however long the clients waited.
 */
export function loopDelay(child) {
  let pending;
  let buffer = '';
  child.stderr.on('data', (d) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const m = /^loop-delay ([\d.]+) ([\d.]+)$/.exec(line);
      if (m && pending) pending({ max: Number(m[1]), cpu: Number(m[2]) }), (pending = undefined);
    }
  });
  const ask = () => new Promise((resolve) => ((pending = resolve), child.kill('SIGUSR2')));
  return { reset: ask, read: async () => { const r = await ask(); return { server_loop_max_ms: r.max, server_held_cpu_ms: r.cpu }; } };
}

const round2 = (x) => Math.round(x * 100) / 100;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * First page, last page and a walk of every page of a listing (`page` rows a page): the median of
 * five firsts and five lasts, the walk's time a page, its rows and pages, and the server's own view
 * of its loop over it all (`loopDelay`). `probeAt`, when given, starts another tenant's probe whose
 * worst wait is answered as `worst_wait_ms`.
 */
export async function measureListing(api, loop, path, { page = 50, probeAt } = {}) {
  const sep = path.includes('?') ? '&' : '?';
  const get = async (key) => {
    const r = await api('GET', `${path}${sep}page_size=${page}${key ? `&start_key=${encodeURIComponent(key)}` : ''}`);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`);
    return r.body;
  };
  const timed = async (key) => {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await get(key);
      times.push(performance.now() - t);
    }
    return round2(median(times));
  };
  await loop.reset();
  const stop = probeAt?.();
  const first_ms = await timed();
  let key;
  let lastKey;
  let pages = 0;
  let rows = 0;
  const walkStart = performance.now();
  do {
    const body = await get(key);
    pages++;
    rows += Array.isArray(body.data) ? body.data.length : Object.keys(body.data.numbers ?? {}).length;
    lastKey = key;
    key = body.next_start_key;
  } while (key !== undefined);
  const walkMs = performance.now() - walkStart;
  const last_ms = await timed(lastKey);
  return {
    first_ms,
    last_ms,
    walk_ms: Math.round(walkMs * 10) / 10,
    pages,
    rows,
    walk_ms_per_page: round2(walkMs / pages),
    ...(stop ? { worst_wait_ms: await stop() } : {}),
    ...(await loop.read()),
  };
}

/** The probe's thread: asks for the account every `everyMs`, keeps each wait until it is read. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let waits = [];
let stopped = false;
parentPort.on('message', (m) => {
  if (m === 'stop') stopped = true;
  else { parentPort.postMessage(waits); waits = []; }
});
(async () => {
  while (!stopped) {
    const t = performance.now();
    const res = await fetch(workerData.url, { headers: { 'X-Auth-Token': workerData.token } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error('probe: ' + res.status);
    waits.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, workerData.everyMs));
  }
})();
`;

/**
 * Another tenant of a server under test: a client on a thread of its own (this process's work must
 * not count as the server's) asking for an account every `everyMs`, warmed up (connected,
 * compiled) when this resolves. `waits()` answers its waits (ms) since the last call.
 */
export async function startAccountProbe(url, token, accountId, everyMs) {
  const worker = new Worker(PROBE, { eval: true, workerData: { url: `${url}/v2/accounts/${accountId}`, token, everyMs } });
  await new Promise((r) => setTimeout(r, 500));
  return {
    waits: () => new Promise((resolve) => (worker.once('message', resolve), worker.postMessage('read'))),
    async stop() {
      worker.postMessage('stop');
      await worker.terminate();
    },
  };
}

// What reading a lab file costs `tel apply` before it plans: the lab of the scale bench (10,000
// accounts under a reseller, 10,000 users, devices, callflows and webhooks in one account), written
// as `tel export` writes it, in YAML and in JSON, parsed by tel's reader (src/lab/parse.ts) each
// in a fresh process, as `tel apply` does; against JSON.parse of the same lab in the same run, and
// against the `yaml` package's parser (what tel used before js-yaml) for the before/after. At a
// tenth of the size and at full size: the per-MB cost says whether parsing is linear.
// Prints a table, then one JSON line.
//   npx node scripts/bench/lab-parse.mjs [--scales 0.1,1] [--runs 3]
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle } from '../bundle.mjs';
import { runMain, TEL_NODE_FLAGS } from './lib/http.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const SCALES = opt('scales', '0.1,1').split(',').map(Number);
const RUNS = Number(opt('runs', 3));
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The scale bench's lab at `scale`, as `tel export` writes it (defaults left out, secrets masked). */
function scaleLab(scale) {
  const n = (count) => Math.max(1, Math.round(count * scale));
  const range = (count, f) => Array.from({ length: n(count) }, (_, i) => f(i));
  const masked = '********';
  const objects = {
    name: 'Objects',
    api_key: masked,
    users: range(10_000, (i) => ({ username: `user${i}`, first_name: 'U', last_name: String(i) })),
    devices: range(10_000, (i) => ({ name: `Phone ${i}`, sip: { username: `phone${i}`, expire_seconds: 300, invite_format: 'contact', method: 'password' } })),
    callflows: range(10_000, (i) => ({
      name: `Flow ${i}`,
      flow: { module: 'user', data: { delay: 0, strategy: 'simultaneous', timeout: 20 } },
      numbers: [`+1415${String(i).padStart(7, '0')}`],
    })),
    webhooks: range(10_000, (i) => ({ name: `Hook ${i}`, hook: 'channel_create', secret: masked, uri: `http://127.0.0.1:9/h${i}` })),
  };
  const sites = n(7000);
  const customers = range(3000, (c) => {
    const own = Array.from({ length: 10 }, (_, s) => c * 10 + s).filter((s) => s < sites);
    return { name: `Customer ${String(c).padStart(5, '0')}`, api_key: masked, ...(own.length > 0 ? { children: own.map((s) => ({ name: `Site ${String(s).padStart(5, '0')}`, api_key: masked })) } : {}) };
  });
  return {
    version: 1,
    account: { name: 'Lab', api_key: masked, users: [{ username: 'admin', first_name: 'Admin', last_name: 'Lab', priv_level: 'admin' }], children: [objects, { name: 'Reseller', api_key: masked, children: customers }] },
  };
}

/** One parse of `file` in a fresh process with tel's V8 flags: its wall and CPU milliseconds. */
function coldParse(parser, file, how) {
  const code = `
    import { readFileSync } from 'node:fs';
    const { ${how === 'yaml-package' ? 'parseDocument' : 'parseLabText'} } = await import(${JSON.stringify(parser)});
    const text = readFileSync(${JSON.stringify(file)}, 'utf8');
    const cpu = process.cpuUsage(), t = performance.now();
    ${
      how === 'tel'
        ? `await parseLabText(text, ${JSON.stringify(file)});`
        : how === 'yaml-package'
          ? 'parseDocument(text, { prettyErrors: true, uniqueKeys: true }).toJS({ maxAliasCount: 100 });'
          : 'JSON.parse(text);'
    }
    const used = process.cpuUsage(cpu);
    console.log(JSON.stringify({ ms: performance.now() - t, cpu_ms: (used.user + used.system) / 1000 }));`;
  return JSON.parse(execFileSync(process.execPath, [...TEL_NODE_FLAGS, '--input-type=module', '-e', code], { encoding: 'utf8', maxBuffer: 1 << 20 }));
}

async function main() {
  if (Number(process.versions.node.split('.')[0]) < 24) throw new Error('run it with `npx node scripts/bench/lab-parse.mjs` (Node 24)');
  const dir = mkdtempSync(join(tmpdir(), 'tel-lab-parse-'));
  const results = { bench: 'lab-parse', runs: RUNS, sizes: [] };
  try {
    // tel's reader and export, bundled as the binary bundles them
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, `export { parseLabText } from ${JSON.stringify(join(root, 'src/lab/parse.ts'))};\nexport { labText } from ${JSON.stringify(join(root, 'src/lab/export.ts'))};\nexport { parseDocument } from ${JSON.stringify(createRequire(import.meta.url).resolve('yaml'))};\n`);
    const parser = pathToFileURL(join(dir, 'lab.mjs')).href;
    await bundle({ entry, outfile: join(dir, 'lab.mjs'), force: true });
    const { labText } = await import(parser);
    for (const scale of SCALES) {
      const lab = scaleLab(scale);
      const files = { yaml: join(dir, `lab-${scale}.yaml`), json: join(dir, `lab-${scale}.json`) };
      const mb = {};
      for (const format of ['yaml', 'json']) {
        const text = await labText(lab, format);
        writeFileSync(files[format], text);
        mb[format] = round(Buffer.byteLength(text) / 1e6, 2);
      }
      const timed = (file, how) => {
        const runs = Array.from({ length: RUNS }, () => coldParse(parser, file, how));
        return { ms: round(median(runs.map((r) => r.ms))), cpu_ms: round(median(runs.map((r) => r.cpu_ms))) };
      };
      const m = {
        json_parse: timed(files.json, 'json-parse'),
        tel_json: timed(files.json, 'tel'),
        tel_yaml: timed(files.yaml, 'tel'),
        yaml_package: timed(files.yaml, 'yaml-package'),
      };
      results.sizes.push({
        scale,
        mb,
        ...m,
        yaml_over_json_parse: round(m.tel_yaml.cpu_ms / m.json_parse.cpu_ms),
        yaml_package_over_json_parse: round(m.yaml_package.cpu_ms / m.json_parse.cpu_ms),
        tel_yaml_cpu_ms_per_mb: round(m.tel_yaml.cpu_ms / mb.yaml),
        yaml_package_cpu_ms_per_mb: round(m.yaml_package.cpu_ms / mb.yaml),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const line = (...cols) => console.log(cols.map((c, i) => (i === 0 ? String(c).padEnd(8) : String(c).padStart(i === cols.length - 1 ? 22 : 14))).join(''));
  line('scale', 'YAML MB', 'JSON.parse', 'tel JSON', 'tel YAML', 'yaml package', 'YAML/JSON.parse');
  for (const s of results.sizes) {
    const cell = (m) => `${m.cpu_ms}/${m.ms}`;
    line(s.scale, s.mb.yaml, cell(s.json_parse), cell(s.tel_json), cell(s.tel_yaml), cell(s.yaml_package), `${s.yaml_over_json_parse} (was ${s.yaml_package_over_json_parse})`);
  }
  console.log('(CPU ms/wall ms, the median of fresh processes; tel YAML per MB: ' + results.sizes.map((s) => `${s.tel_yaml_cpu_ms_per_mb} ms at ${s.scale}`).join(', ') + ')');
  console.log(JSON.stringify(results));
}

runMain(main);

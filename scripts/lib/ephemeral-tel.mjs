// A throw-away tel server for the developer's scripts that compare tel with a Kazoo checkout.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Starts `tel serve --ephemeral --port 0 --json` and answers what it printed (`url`, `api_key`,
 * `account_id`, `username`, `password`, …) with `apiKey` and `stop()`.
 */
export async function startEphemeralTel() {
  const child = spawn(process.execPath, [join(root, 'bin/tel.js'), 'serve', '--ephemeral', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = [];
  let buf = '';
  await new Promise((done, fail) => {
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (lines.length === 2) done();
      }
    });
    child.on('exit', (code) => fail(new Error(`tel serve exited (${code})`)));
  });
  const info = JSON.parse(lines[1]);
  return { ...info, apiKey: info.api_key, stop: () => child.kill('SIGTERM') };
}

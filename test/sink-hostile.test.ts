import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTel } from './helpers/cli.js';
import { tempDir } from './helpers/server.js';
import { startTelSink, until, type TelProcess } from './helpers/tel-process.js';

/** A process's resident memory in MB. */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

const MIB = 1024 * 1024;

/** What a later wave of slow bodies may add to the sink's RSS: twice the most measured (one kept for good adds 300). */
const WAVE_NOISE_MB = 80;

/** Opens a connection that sends the headers of a 1 MiB body and all of it but its last byte; resolves once written. */
function almostWholeBody(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`POST /slow HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${MIB}\r\n\r\n`);
      socket.write(Buffer.alloc(MIB - 1, 'x'), () => resolve(socket));
    });
    socket.on('error', reject);
  });
}

/**
 * Row 12 of the hostile-tenant review: many connections each sending a 1 MiB body one byte short
 * made `tel sink` hold a mebibyte each, for good. A real `tel sink` process here.
 */
describe('tel sink under clients that never finish their requests', () => {
  const tmp = tempDir('tel-sink-hostile-');
  const db = join(tmp.dir, 'lab.db');
  let sink: TelProcess & { url: string };
  const sockets: Socket[] = [];

  beforeAll(async () => {
    const init = await spawnTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw-admin-1']);
    expect(init.code, init.stderr).toBe(0);
    sink = await startTelSink(db);
  }, 30_000);

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await sink?.stop();
    tmp.cleanup();
  });

  /** Sends 300 slow bodies; answers the sink's RSS once they are in, and the sockets with what they received. */
  async function slowWave(url: URL): Promise<{ rss: number; sockets: Socket[]; answers: string[]; ended: Set<Socket> }> {
    const wave: Socket[] = [];
    const answers: string[] = [];
    const ended = new Set<Socket>();
    for (let i = 0; i < 300; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => almostWholeBody(url)));
      for (const s of batch) {
        s.on('data', (d) => answers.push(d.toString('latin1')));
        s.on('close', () => ended.add(s));
      }
      wave.push(...batch);
    }
    sockets.push(...wave);
    await new Promise((r) => setTimeout(r, 1000));
    return { rss: rssMb(sink.child.pid!), sockets: wave, answers, ended };
  }

  it('holds a bounded share of what 300 slow bodies send, caps its connections, drops the slow ones, and a second wave costs no more', async () => {
    const url = new URL(sink.url);
    const pid = sink.child.pid!;
    await new Promise((r) => setTimeout(r, 500));
    const before = rssMb(pid);
    const first = await slowWave(url);
    // 300 MiB were sent; the sink keeps 16 MiB of bodies at most (the rest is read and dropped)
    expect(first.rss - before, `RSS ${before.toFixed(0)} → ${first.rss.toFixed(0)} MB`).toBeLessThan(100);

    // past its cap on connections, the sink closes new ones at once
    const extra: Socket[] = [];
    const closedExtra = new Set<Socket>();
    for (let i = 0; i < 800; i++) {
      const s = connect(Number(url.port), url.hostname);
      s.on('error', () => {});
      s.on('close', () => closedExtra.add(s));
      extra.push(s);
    }
    sockets.push(...extra);
    await until(() => closedExtra.size >= 800 + 300 - 1024, 'connections over the cap to be closed', 5000);
    for (const s of extra) s.destroy();

    // the slow requests are answered 408 and their connections closed once the request timeout passes
    await until(() => first.ended.size === 300, 'the slow connections to be dropped', 20_000);
    expect(first.answers.filter((a) => a.startsWith('HTTP/1.1 408'))).toHaveLength(300);

    // what a wave held is given back: a wave kept for good would add the 300 MiB it sent; measured,
    // the second wave adds 35-43 MB over the first on a busy box (the sink settling) and a third the
    // allocator's noise (2-10 MB quiet, 22-40 in CI beside other test files)
    const second = await slowWave(url);
    for (const s of second.sockets) s.destroy();
    await until(() => second.ended.size === 300, 'the second wave to be dropped', 20_000);
    const third = await slowWave(url);
    for (const s of third.sockets) s.destroy();
    const waves = `RSS ${before.toFixed(0)} → ${first.rss.toFixed(0)}, ${second.rss.toFixed(0)}, ${third.rss.toFixed(0)} MB`;
    expect(second.rss, waves).toBeLessThan(first.rss + WAVE_NOISE_MB);
    expect(third.rss, waves).toBeLessThan(second.rss + WAVE_NOISE_MB);
    const ok = await fetch(`${sink.url}/after`, { method: 'POST', body: '{}' });
    expect(ok.status).toBe(200);
  }, 90_000);
});

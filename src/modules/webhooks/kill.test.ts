import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel, TEL_BIN } from '../../../test/helpers/cli.js';
import { tempDir } from '../../../test/helpers/server.js';
import { startSink, type Sink } from '../../../test/helpers/sink.js';

/** `tel serve` as a real child process; resolves with its URL once it listens. */
function serve(db: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TEL_BIN, 'serve', '--db', db, '--port', '0']);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`tel serve did not start: ${out}`)), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /tel listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`tel serve exited (${code}): ${out}`)));
  });
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

describe('durable outbox: a server killed mid-delivery loses nothing', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'kill.db');
  let sink: Sink;
  let account: string;
  let running: ChildProcessWithoutNullStreams | undefined;

  beforeAll(async () => {
    sink = await startSink();
    const init = await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'secret-pass']);
    expect(init.code, init.stderr).toBe(0);
    account = JSON.parse(init.stdout).account_id;
    const hook = await runTel(['webhooks', 'create', '--db', db, '--account', account, '--name', 'Held', '--uri', `${sink.url}/held`, '--hook', 'channel_create', '--format', 'json']);
    expect(hook.code, hook.stderr).toBe(0);
  });
  afterAll(async () => {
    if (running && running.exitCode === null) {
      running.kill('SIGKILL');
      await exited(running);
    }
    await sink.close();
    tmp.cleanup();
  });

  it('SIGKILL while the sink holds deliveries; after a restart every event arrives (same event ids)', async () => {
    sink.respond(() => 'hang');
    const first = await serve(db);
    running = first.child;
    const events = 20;
    for (let i = 0; i < events; i++) {
      const r = await runTel(['simulate', 'call', '--db', db, '--account', account, '--no-answer']);
      expect(r.code, r.stderr).toBe(0);
    }
    // per-target concurrency (16) are held at the sink; the rest wait in the server's memory
    const held = await sink.waitFor(16, { timeoutMs: 10_000 });
    const heldIds = new Set(held.map((r) => r.headers['x-event-id']));
    first.child.kill('SIGKILL');
    await exited(first.child);
    const killedAt = Date.now();
    sink.respond(() => ({ status: 200 }));
    sink.releaseHung();

    const second = await serve(db);
    running = second.child;
    const after = await sink.waitFor(events, { filter: (r) => r.at >= killedAt, timeoutMs: 10_000 });
    const ids = new Set(after.map((r) => r.headers['x-event-id']));
    expect(ids.size).toBe(events);
    for (const id of heldIds) expect(ids.has(id)).toBe(true);

    second.child.kill('SIGTERM');
    await exited(second.child);
    const attempts = await runTel(['webhooks', 'attempts', '--db', db, '--account', account, '--limit', '0', '--json']);
    const successes = JSON.parse(attempts.stdout).filter((a: { result: string }) => a.result === 'success');
    expect(new Set(successes.map((a: { event_id: string }) => a.event_id)).size).toBe(events);
  });
});

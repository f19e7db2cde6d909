import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeCore, openCore, type Core } from '../src/core.js';
import { startJobExecutor } from '../src/jobs/executor.js';
import { createJob, findJobById } from '../src/jobs/store.js';
import { initDatabase } from '../src/modules/accounts/bootstrap.js';
import { createResource } from '../src/modules/resources/service.js';
import { diskFull, storageMetrics, storageState } from '../src/store/health.js';
import { runTel } from './helpers/cli.js';
import { httpRequest, type ApiAnswer } from './helpers/server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { startTel, until, type TelProcess } from './helpers/tel-process.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from './helpers/tmpfs.js';

const unavailable = smallDiskUnavailable();
if (unavailable) console.warn(`storage-faults: skipped: ${unavailable}`);

/** The lines a server wrote to stderr that tell of a storage episode starting and ending. */
const episodeStarts = (p: TelProcess) => p.stderr.split('\n').filter((l) => /^tel: storage of tel\.db: since \d\d:\d\d:\d\d, /.test(l));
const episodeEnds = (p: TelProcess) => p.stderr.split('\n').filter((l) => /^tel: storage of tel\.db: writes work again/.test(l));

/** What a full disk answers: 507 with Retry-After and the cause, in Kazoo's error envelope. */
function expectFull(r: ApiAnswer): void {
  expect(r.status, r.text.slice(0, 300)).toBe(507);
  expect(r.headers.get('retry-after')).toBe('30');
  expect(r.body).toMatchObject({
    status: 'error',
    error: '507',
    message: 'datastore full',
    data: { message: 'datastore full', cause: 'the disk holding the database is full: nothing can be written until space is freed' },
  });
}

/** Starts `tel serve` on `db`, in `servers` from the start (stopped after the test, even if it never listens). */
async function serve(db: string, servers: TelProcess[]): Promise<TelProcess & { url: string }> {
  const p = startTel(['serve', '--db', db, '--port', '0']);
  servers.push(p);
  const url = await p.until(() => /tel listening on (http:\/\/\S+)/.exec(p.stdout)?.[1], 'tel serve to listen', 20_000);
  return Object.assign(p, { url });
}

/** A new database served, logged in with its master account's API key. */
async function serveNew(db: string, servers: TelProcess[]): Promise<{ p: TelProcess & { url: string }; account: string; token: string }> {
  const p = await serve(db, servers);
  const key = /api_key\s+(\S+)/.exec(p.stdout)?.[1];
  const login = await httpRequest(p.url, 'PUT', '/v2/api_auth', { data: { api_key: key } });
  expect(login.status, login.text).toBe(201);
  return { p, account: login.body.data.account_id, token: login.body.auth_token };
}

/** A device document of about `kib` KiB (fields tel does not know are kept). */
const bigDevice = (kib: number, i: number) => ({ name: `filler ${i}`, lab_notes: 'x'.repeat(kib * 1024) });

describe.skipIf(unavailable)('a full disk under the database (a small tmpfs)', () => {
  let disk: SmallDisk | undefined;
  let sink: Sink | undefined;
  const servers: TelProcess[] = [];
  afterEach(async () => {
    for (const p of servers.splice(0)) await p.stop('SIGKILL');
    await sink?.close();
    sink = undefined;
    disk?.cleanup();
    disk = undefined;
  });

  it('writes answer 507 while it is full, logged once; reads go on; every acknowledged event is delivered once space returns, none twice', async () => {
    disk = mountSmallDisk('4m');
    const db = join(disk.dir, 'tel.db');
    const { p, account, token } = await serveNew(db, servers);
    sink = await startSink();
    // answers a little later, so that deliveries are in flight while the disk fills
    sink.respond(async () => (await new Promise((r) => setTimeout(r, 20)), { status: 200 }));
    const hook = await httpRequest(p.url, 'PUT', `/v2/accounts/${account}/webhooks`, {
      token,
      data: { name: 'Calls', uri: `${sink.url}/calls`, hook: 'channel_create', http_verb: 'post', format: 'json' },
    });
    expect(hook.status, hook.text).toBe(201);

    const acknowledged = new Set<string>();
    let refused = 0;
    let fullSince: number | undefined;
    let call = 0;
    for (let round = 0; round < 400 && (fullSince === undefined || round < fullSince + 8); round++) {
      const calls = [0, 1, 2, 3].map(() => {
        const id = `call-${++call}`;
        return httpRequest(p.url, 'PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', answer: false, call_id: id } }).then((r) => ({ id, r }));
      });
      const big = await httpRequest(p.url, 'PUT', `/v2/accounts/${account}/devices`, { token, data: bigDevice(256, round) });
      for (const { id, r } of await Promise.all(calls)) {
        if (r.status === 201) acknowledged.add(id);
        else (expectFull(r), refused++);
      }
      if (big.status === 201) continue;
      expectFull(big);
      refused++;
      fullSince ??= round;
    }
    expect(fullSince, 'the disk never filled').toBeDefined();
    expect(refused).toBeGreaterThan(0);
    // reads go on, from the same token
    const read = await httpRequest(p.url, 'GET', `/v2/accounts/${account}`, { token });
    expect(read.status, read.text).toBe(200);
    // one line for the episode, no stack per request
    expect(episodeStarts(p), p.stderr).toHaveLength(1);
    expect(p.stderr).not.toMatch(/\n\s+at /);
    expect(p.stderr).not.toMatch(/failed: Error/);

    disk.resize('64m');
    const callIdOf = (body: string) => (JSON.parse(body) as { call_id: string }).call_id;
    await until(() => [...acknowledged].every((id) => sink!.requests.some((r) => callIdOf(r.body) === id)), 'every acknowledged call delivered', 20_000);
    await until(() => episodeEnds(p).length === 1, 'the end of the episode logged', 10_000);
    expect(episodeEnds(p)[0]).toMatch(new RegExp(`; ${refused} requests? refused\\)$`));
    // nothing sent twice, nothing sent that was refused
    await new Promise((r) => setTimeout(r, 1000));
    const eventIds = sink.requests.map((r) => r.headers['x-event-id']);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(new Set(sink.requests.map((r) => callIdOf(r.body)))).toEqual(acknowledged);
    // writes work again, by themselves
    const after = await httpRequest(p.url, 'PUT', `/v2/accounts/${account}/devices`, { token, data: bigDevice(256, 9999) });
    expect(after.status, after.text.slice(0, 300)).toBe(201);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('tel serve started on a full disk where a killed server left its write-ahead log serves reads, answers 507, and writes once space returns', async () => {
    // 6 MiB: once the filler goes, the killed server's log (2.2 MiB) is folded into the file, and
    // the space left must stay above LOW_SPACE_BYTES (1 MiB) for the episode to end; on 4 MiB
    // that margin was under 50 KiB, less than the pages a migration adds (3200's: 72 KiB)
    disk = mountSmallDisk('6m');
    const db = join(disk.dir, 'tel.db');
    const first = await serveNew(db, servers);
    for (let i = 0; i < 5; i++) {
      const r = await httpRequest(first.p.url, 'PUT', `/v2/accounts/${first.account}`, { token: first.token, data: { name: `Customer ${i}` } });
      expect(r.status, r.text).toBe(201);
    }
    await first.p.stop('SIGKILL');
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    expect(diskFull(db)).toBe(false);
    const filler = disk.fill();
    // what tel watch's header and the end of an episode go by
    expect(diskFull(db)).toBe(true);

    const p = await serve(db, servers);
    const { account, token } = first;
    const read = await httpRequest(p.url, 'GET', `/v2/accounts/${account}/children`, { token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toHaveLength(5);
    // the killed server's log, once folded into the file, is written over again: the first writes
    // may fit in it; then the disk is full
    let write: ApiAnswer | undefined;
    for (let i = 0; i < 40 && write?.status !== 507; i++) {
      write = await httpRequest(p.url, 'PUT', `/v2/accounts/${account}/devices`, { token, data: bigDevice(512, i) });
      if (write.status !== 201) expectFull(write);
    }
    expectFull(write!);
    expect(episodeStarts(p), p.stderr).toHaveLength(1);
    expect(p.stderr).not.toMatch(/Cannot listen/);

    // the CLI tells the same sentence, exit 1
    const cli = await runTel(['accounts', 'create', 'From the CLI', '--parent', account, '--db', db]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe('Refused (507): the disk holding the database is full: nothing can be written until space is freed.\n');

    rmSync(filler);
    expect(diskFull(db)).toBe(false);
    await until(() => episodeEnds(p).length === 1, 'the end of the episode logged', 10_000);
    const after = await httpRequest(p.url, 'PUT', `/v2/accounts/${account}/devices`, { token, data: bigDevice(512, 100) });
    expect(after.status, after.text.slice(0, 300)).toBe(201);
    expect(await p.stop('SIGTERM')).toBe(0);
    expect(existsSync(`${db}-wal`)).toBe(false);
  });

  it('a job that fills the disk waits where its last batch ended, says so in the metrics, and completes once there is space', async () => {
    // 5 MiB: a new file's schema (1.2 MiB) and the log its migrations leave take much of it, and
    // the job's first batches must fit in the rest (on 4 MiB none does)
    disk = mountSmallDisk('5m');
    const core: Core = openCore(join(disk.dir, 'tel.db'));
    const logged: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (logged.push(String(s)), true));
    const executor = startJobExecutor(core);
    try {
      const { account_id } = initDatabase(core, { account: 'Lab', username: 'admin', password: 'pw' });
      const resource = createResource(core, { accountId: account_id }, { name: 'Carrier', gateways: [{ server: 'gw.example.net' }] });
      const numbers = Array.from({ length: 20_000 }, (_, i) => `+1415${String(5_000_000 + i).padStart(7, '0')}`);
      const job = createJob(core, { accountId: account_id, resourceId: resource.id, numbers });
      await until(() => storageState(core.db).waiting.jobs === 1, 'the job to wait for the disk', 20_000);
      const waiting = findJobById(core, job.id)!;
      expect(waiting.status).toBe('running');
      expect(waiting.processed).toBeGreaterThan(0);
      expect(waiting.processed).toBeLessThan(numbers.length);
      expect(storageState(core.db)).toMatchObject({ status: 'full', waiting: { jobs: 1 } });
      expect(storageMetrics(core.db)).toMatch(/^tel_storage_fault\{fault="full"\} 1$/m);
      expect(storageMetrics(core.db)).toMatch(/^tel_storage_waiting\{worker="jobs"\} 1$/m);

      disk.resize('64m');
      await until(() => findJobById(core, job.id)!.status === 'complete', 'the job to complete', 20_000);
      expect(findJobById(core, job.id)).toMatchObject({ processed: numbers.length, successes: numbers.length, failures: 0 });
      expect(storageState(core.db)).toMatchObject({ status: 'ok', since: null, episodes: 1, waiting: { jobs: 0 } });
      expect(logged.filter((l) => /storage of tel\.db: since /.test(l))).toHaveLength(1);
      expect(logged.filter((l) => /storage of tel\.db: writes work again/.test(l))).toHaveLength(1);
      expect(logged.join('')).not.toMatch(/job .* stopped/);
    } finally {
      spy.mockRestore();
      await executor.stop();
      closeCore(core);
    }
  });
});

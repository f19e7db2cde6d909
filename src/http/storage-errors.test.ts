import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeError, storageFaultOf } from '../errors.js';
import { storageMetrics, storageState } from '../store/health.js';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { until } from '../../test/helpers/tel-process.js';
import { Router } from './router.js';
import { createApiServer } from './server.js';

/** An error as node:sqlite throws it, with SQLite's (extended) result code. */
const sqliteError = (errcode: number, message: string) => Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode });

describe('storage errors in the one catalogue', () => {
  it("SQLite's result codes, extended ones included, name the fault; anything else is no storage fault", () => {
    expect(storageFaultOf(sqliteError(13, 'database or disk is full'))).toBe('full');
    expect(storageFaultOf(sqliteError(10 | (4 << 8), 'disk I/O error'))).toBe('io_error');
    expect(storageFaultOf(sqliteError(8 | (4 << 8), 'attempt to write a readonly database'))).toBe('read_only');
    expect(storageFaultOf(sqliteError(14, 'unable to open database file'))).toBe('cannot_open');
    expect(storageFaultOf(sqliteError(5, 'database is locked'))).toBeUndefined();
    expect(storageFaultOf(new Error('database or disk is full'))).toBeUndefined();
  });

  it('the CLI tells a storage fault as the API answers it, in one sentence', () => {
    expect(describeError(sqliteError(13, 'database or disk is full'))).toBe(
      'Refused (507): the disk holding the database is full: nothing can be written until space is freed.',
    );
    expect(describeError(sqliteError(8, 'attempt to write a readonly database'))).toBe(
      'Refused (503): the database file cannot be written (it or its file system is read-only).',
    );
  });
});

describe('a server whose file takes no writes (read-only)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    srv.core.db.exec('PRAGMA query_only = OFF');
    await srv.close();
  });

  it('answers writes 503 with Retry-After, reads as before, logs the episode once, and writes again by itself', async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (logged.push(String(s)), true));
    try {
      const account = srv.master.account_id;
      srv.core.db.exec('PRAGMA query_only = ON');
      for (let i = 0; i < 3; i++) {
        const w = await srv.request('PUT', `/v2/accounts/${account}`, { token: srv.adminToken, data: { name: `Child ${i}` } });
        expect(w.status, w.text).toBe(503);
        expect(w.headers.get('retry-after')).toBe('10');
        expect(w.body).toMatchObject({
          error: '503',
          message: 'datastore unavailable',
          data: { message: 'datastore unavailable', cause: 'the database file cannot be written (it or its file system is read-only)' },
        });
      }
      expect((await srv.request('GET', `/v2/accounts/${account}`, { token: srv.adminToken })).status).toBe(200);
      expect(storageState(srv.core.db)).toMatchObject({ status: 'read_only', refused: 3 });
      expect(storageMetrics(srv.core.db)).toMatch(/^tel_storage_fault\{fault="read_only"\} 1$/m);
      expect(logged.filter((l) => /^tel: storage of tel\.db: since .*read-only/.test(l))).toHaveLength(1);

      srv.core.db.exec('PRAGMA query_only = OFF');
      await until(() => storageState(srv.core.db).status === 'ok', 'writes to work again', 5000);
      expect(logged.filter((l) => /^tel: storage of tel\.db: writes work again at .* \(read-only for \d+ s; 3 requests refused\)/.test(l))).toHaveLength(1);
      const w = await srv.request('PUT', `/v2/accounts/${account}`, { token: srv.adminToken, data: { name: 'Child again' } });
      expect(w.status, w.text).toBe(201);
      expect(storageMetrics(srv.core.db)).toMatch(/^tel_storage_refused_requests_total 3$/m);
      expect(logged.join('')).not.toMatch(/\n\s+at /);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('a fault in the middle of a streamed answer', () => {
  let srv: TestServer;
  let server: Server;
  let url: string;
  /** What the streams throw: SQLite's I/O error on a read (SQLITE_IOERR_READ), else a bug's. */
  const faults: Record<string, Error> = { storage: sqliteError(10 | (1 << 8), 'disk I/O error'), bug: new TypeError('rows is not iterable') };
  beforeAll(async () => {
    srv = await startTestServer();
    // a streamed answer as a listing makes one: pieces read one after the other, failing at `when`
    const router = new Router();
    router.endpoints.add('streamed');
    router.add({
      method: 'GET',
      path: 'streamed/:fault/:when',
      auth: 'none',
      handler: (ctx) => ({
        stream: {
          pieces: (function* () {
            if (ctx.params.when === 'first') throw faults[ctx.params.fault];
            yield '[{"n":1}';
            yield ',{"n":2}';
            throw faults[ctx.params.fault];
          })(),
        },
      }),
    });
    server = createApiServer(srv.core, router);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/streamed`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await srv.close();
  });

  it('a storage fault is told by the storage episode (once, no stack); the answer is cut short, so the client sees an error, not JSON that looks whole', async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (logged.push(String(s)), true));
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${url}/storage/later`);
        expect(res.status).toBe(200);
        await expect(res.text()).rejects.toThrow();
      }
      // failing before its first piece, it is answered as any request the storage refuses
      const before = await fetch(`${url}/storage/first`);
      expect(before.status).toBe(503);
      expect(await before.json()).toMatchObject({ error: '503', data: { cause: 'the database file cannot be read or written (an I/O error)' } });
      expect(storageState(srv.core.db)).toMatchObject({ status: 'io_error', refused: 3 });
      expect(logged.filter((l) => /^tel: storage of tel\.db: since .*an I\/O error.*disk I\/O error/.test(l))).toHaveLength(1);
      expect(logged.join('')).not.toMatch(/\n\s+at /);
      // nothing is wrong with the file: the episode ends at the next probe
      await until(() => storageState(srv.core.db).status === 'ok', 'the episode to end', 5000);
    } finally {
      spy.mockRestore();
    }
  });

  it("any other failure is a 500's: one line with the request id and the stack; the answer is cut short all the same", async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (logged.push(String(s)), true));
    try {
      const res = await fetch(`${url}/bug/later`);
      await expect(res.text()).rejects.toThrow();
      const id = res.headers.get('x-request-id');
      expect(logged.filter((l) => l.startsWith(`tel: request ${id} failed: TypeError: rows is not iterable`))).toHaveLength(1);
      expect((await fetch(`${url}/bug/first`)).status).toBe(500);
      expect(storageState(srv.core.db).status).toBe('ok');
    } finally {
      spy.mockRestore();
    }
  });
});

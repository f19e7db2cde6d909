import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../../core.js';
import { runTel } from '../../../test/helpers/cli.js';
import { startTestServer, tempDir } from '../../../test/helpers/server.js';
import { until } from '../../../test/helpers/tel-process.js';
import type { Db } from '../../store/db.js';

/** SQLite's `synchronous` of a connection: 1 NORMAL, 2 FULL. */
const synchronous = (db: Db) => (db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous;

describe('storage.synchronous: what a commit survives', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('is normal by default, full once configured, for every process that opens the file; anything else is refused', async () => {
    const db = join(tmp.dir, 'sync.db');
    expect((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 'pw'])).code).toBe(0);
    let core = openCore(db);
    expect(synchronous(core.db)).toBe(1);
    closeCore(core);

    const set = await runTel(['config', 'set', 'storage', 'synchronous', 'full', '--db', db]);
    expect(set.code, set.stderr).toBe(0);
    core = openCore(db);
    expect(synchronous(core.db)).toBe(2);
    closeCore(core);

    const bad = await runTel(['config', 'set', 'storage', 'synchronous', 'always', '--db', db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/default\.synchronous: Value not found in enumerated list of values/);
    const shown = await runTel(['config', 'get', 'storage', 'synchronous', '--db', db]);
    expect(shown.stdout.trim()).toBe('full');
  });

  it('a running server takes a change made through the API within a few seconds', async () => {
    const srv = await startTestServer();
    try {
      expect(synchronous(srv.core.db)).toBe(1);
      const r = await srv.request('POST', '/v2/system_configs/storage', { token: srv.adminToken, data: { default: { synchronous: 'full' } } });
      expect(r.status, r.text).toBe(200);
      await until(() => synchronous(srv.core.db) === 2, 'the server to apply synchronous = full', 5000);
      const refused = await srv.request('POST', '/v2/system_configs/storage', { token: srv.adminToken, data: { default: { synchronous: 'off' } } });
      expect(refused.status).toBe(400);
      expect(refused.body.data).toMatchObject({ 'default.synchronous': { enum: { target: ['normal', 'full'], value: 'off' } } });
    } finally {
      await srv.close();
    }
  });
});

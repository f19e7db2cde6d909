import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeCore, openCore } from '../core.js';
import { initDatabase } from '../modules/accounts/bootstrap.js';
import { runTel } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';
import { ListenError, startApi } from './app.js';

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Whether something listens on the port (a listen of our own fails). */
async function taken(port: number): Promise<boolean> {
  const s = createServer();
  return new Promise((resolve) => {
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });
}

describe('a start completes or leaves nothing behind', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('a failure after listening closes the listener before the error goes up', async () => {
    const core = openCore(join(tmp.dir, 'start.db'));
    initDatabase(core, { account: 'Lab', username: 'admin', password: 'pw' });
    const port = await freePort();
    // the file closed under the server: the first step after listening fails
    core.db.close();
    await expect(startApi(core, '127.0.0.1', port)).rejects.toThrow(/not open/);
    expect(await taken(port)).toBe(false);
    expect(core.serving).toBe(false);
  });

  it('a port in use is one sentence naming it, and nothing is left started (tel serve exits 1)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const core = openCore(join(tmp.dir, 'busy-port.db'));
      await expect(startApi(core, '127.0.0.1', port)).rejects.toBeInstanceOf(ListenError);
      expect(core.serving).toBe(false);
      closeCore(core);
      const r = await runTel(['serve', '--db', join(tmp.dir, 'busy-port.db'), '--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`Cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}.\n`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

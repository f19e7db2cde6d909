import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const program = join(root, 'test', 'client', 'webhooks.ts');

/** Type-checks the files of `dir` (tsc, the project's TypeScript): its exit code and what it printed. */
function typecheck(dir: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('a client generated from /v2/openapi.json (openapi-typescript, openapi-fetch)', () => {
  let srv: TestServer;
  let dir: string;

  beforeAll(async () => {
    srv = await startTestServer();
    // under the project, so that the client's imports (openapi-fetch) resolve from its node_modules
    mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
    dir = mkdtempSync(join(root, 'node_modules', '.cache', 'tel-client-'));
    const doc = (await srv.request('GET', '/v2/openapi.json')).body;
    writeFileSync(join(dir, 'tel-api.d.ts'), await openapiTS(doc));
    copyFileSync(program, join(dir, 'webhooks.ts'));
    const compilerOptions = { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], lib: ['es2023', 'dom'] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['webhooks.ts', 'tel-api.d.ts'] }));
  });
  afterAll(async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks the program with the generated types, and refuses it once it sends what the document forbids', () => {
    const ok = typecheck(dir);
    expect(ok.out).toBe('');
    expect(ok.code).toBe(0);
    const text = readFileSync(program, 'utf8');
    for (const [what, from, to] of [
      ['a retries that is not a number', 'retries: 3 }', "retries: 'three' }"],
      ['a hook type that does not exist', "hook: 'channel_destroy'", "hook: 'channel_exploded'"],
      ['a path without its account', 'params: { path: account },', 'params: { path: {} },'],
    ]) {
      expect(text, what).toContain(from);
      writeFileSync(join(dir, 'webhooks.ts'), text.replace(from, to));
      const broken = typecheck(dir);
      expect(broken.code, what).not.toBe(0);
      expect(broken.out, what).toMatch(/error TS\d+/);
    }
    writeFileSync(join(dir, 'webhooks.ts'), text);
  });

  it('runs the program against a real server: create, list, patch and delete a webhook', async () => {
    // imported by its path: the project's own type check leaves the program out (its types are generated here)
    const { webhookRoundTrip } = await import(pathToFileURL(program).href);
    const trip = await webhookRoundTrip(`${srv.url}/v2`, srv.adminToken, srv.master.account_id);
    expect(trip.created).toMatchObject({ retries: 3, format: 'form-data' });
    expect(trip.listed).toContain(trip.created.id);
    expect(trip.patched).toEqual({ enabled: false, name: 'Typed client' });
    expect(trip.deleted).toBe(true);
    const gone = await srv.request('GET', `/v2/accounts/${srv.master.account_id}/webhooks/${trip.created.id}`, { token: srv.adminToken });
    expect(gone.status).toBe(404);
  });
});

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withoutSecrets } from '../../src/http/access-log.js';
import { runTel } from '../helpers/cli.js';
import { httpRequest, tempDir } from '../helpers/server.js';
import { startTel, startTelServe, until, type TelProcess } from '../helpers/tel-process.js';

describe('tel serve: a second server on the file, and the access log', () => {
  const tmp = tempDir('tel-serve-presence-');
  const db = join(tmp.dir, 'tel.db');
  let apiKey: string;
  const running: TelProcess[] = [];
  beforeAll(async () => {
    apiKey = JSON.parse((await runTel(['init', '--db', db, '--account', 'Lab', '--username', 'admin', '--password', 's3cret'])).stdout).api_key;
  });
  afterEach(async () => {
    for (const p of running.splice(0)) await p.stop();
  });
  afterAll(() => tmp.cleanup());

  it('a second tel serve on a file another one serves is refused, saying where that one listens and what two would mean; --share runs it, saying so', async () => {
    const first = await startTelServe(db);
    running.push(first);
    const second = startTel(['serve', '--db', db, '--port', '0']);
    running.push(second);
    const ended = await until(() => (second.child.exitCode !== null ? `exit ${second.child.exitCode}` : /listening/.test(second.stdout) && 'listening'), 'the second server to end or listen', 20_000);
    expect(ended).toBe('exit 1');
    expect(second.stderr).toMatch(
      new RegExp(
        `^A server already serves ${db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(${first.url.replace(/\./g, '\\.')}, pid ${first.child.pid}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): ` +
          'a second one would share its deliveries and jobs \\(each sent or run once, by whichever server takes it first\\)\\. ' +
          'Stop it, serve another file \\(--db\\), or run beside it with --share\\.\\n$',
      ),
    );
    const beside = await startTelServe(db, '--share');
    running.push(beside);
    expect(beside.stderr).toContain(`Note: A server already serves ${db} (${first.url}, pid ${first.child.pid}, since `);
    expect((await httpRequest(beside.url, 'PUT', '/v2/api_auth', { data: { api_key: apiKey } })).status).toBe(201);
    // once the first has stopped, a server starts without a word
    await first.stop();
    await beside.stop();
    const again = await startTelServe(db);
    running.push(again);
    expect(again.stderr).toBe('');
  });

  it('--access-log prints a line a request, its secrets left out; without it, nothing', async () => {
    const logged = await startTelServe(db, '--access-log');
    running.push(logged);
    const login = await httpRequest(logged.url, 'PUT', '/v2/api_auth', { data: { api_key: apiKey }, headers: { 'User-Agent': 'lab-client/1.0' } });
    const token = login.body.auth_token as string;
    await httpRequest(logged.url, 'GET', `/v2/user_auth/${token}`);
    await httpRequest(logged.url, 'GET', `/v2/auth/tokeninfo?token=${token}&x=1`);
    const denied = await httpRequest(logged.url, 'GET', `/v2/accounts/${'0'.repeat(32)}?auth_token=${token}`);
    const lines = await logged.until(() => {
      const l = logged.stdout.split('\n').filter((x) => x.includes('] "'));
      return l.length >= 4 && l;
    }, 'four access log lines');
    expect(lines[0]).toMatch(new RegExp(`^127\\.0\\.0\\.1 - - \\[\\d{4}-[\\d-]+T[\\d:.]+Z\\] "PUT /v2/api_auth" 201 ${Buffer.byteLength(login.text)} "lab-client/1.0" [\\d.]+ms ${login.headers.get('x-request-id')}$`));
    expect(lines[1]).toContain('"GET /v2/user_auth/-" ');
    expect(lines[2]).toContain('"GET /v2/auth/tokeninfo?token=-&x=1" ');
    expect(lines[3]).toContain(`"GET /v2/accounts/${'0'.repeat(32)}?auth_token=-" ${denied.status} `);
    expect(logged.stdout).not.toContain(token);
    expect(logged.stdout).not.toContain(apiKey);
    await logged.stop();

    const quiet = await startTelServe(db);
    running.push(quiet);
    await httpRequest(quiet.url, 'GET', '/v2/webhooks');
    await new Promise((r) => setTimeout(r, 200));
    expect(quiet.stdout).toBe(`tel listening on ${quiet.url}\n`);
  });

  it('leaves out of a URL every query value named as a secret and every value in the form of a token', () => {
    expect(withoutSecrets('/v2/accounts/abc/devices?page_size=5&api_key=k1&Password=p&x=eyJhbGciOi.eyJpc3MiOi.c2lnbmF0dXJl')).toBe(
      '/v2/accounts/abc/devices?page_size=5&api_key=-&Password=-&x=-',
    );
    expect(withoutSecrets('/v2/user_auth/eyJhbGciOi.eyJpc3MiOi.c2lnbmF0dXJl')).toBe('/v2/user_auth/-');
    expect(withoutSecrets('/v2/accounts/abc?filter_name=a.b.c')).toBe('/v2/accounts/abc?filter_name=a.b.c');
  });
});

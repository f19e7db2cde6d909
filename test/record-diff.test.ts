import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel } from './helpers/cli.js';
import { httpRequest, tempDir } from './helpers/server.js';
import { startTel, until, type TelProcess } from './helpers/tel-process.js';
import { mountSmallDisk, smallDiskUnavailable } from './helpers/tmpfs.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** The lab both servers are built from: the passwords and API key the recorded client logs in with. */
const LAB = `version: 1
account:
  name: Lab
  realm: lab.tel.local
  api_key: lab-ci-key-0123456789abcdef0123456789abcdef
  users:
    - username: admin
      password: s3cret-admin
      priv_level: admin
      first_name: Lab
      last_name: Admin
  children:
    - name: Customer A
      realm: a.lab.example
      users:
        - username: alice
          password: alice-pass-1
          first_name: Alice
          last_name: Doe
`;
const HOOK_SECRET = 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';

/** Starts `tel serve --ephemeral` on the lab; resolves with its URL once it listens. */
async function ephemeral(lab: string): Promise<TelProcess & { url: string }> {
  const p = startTel(['serve', '--ephemeral', '--fixture', lab, '--port', '0', '--json']);
  await p.until(() => p.json()[0], 'the ephemeral server to print its credentials', 30_000);
  return Object.assign(p, { url: p.stdout.split('\n')[0].trim() });
}

/**
 * An acceptance-like run of a client through `base`: logins of each kind, accounts, users, devices, a
 * voicemail box, webhooks, tokens. Answers every secret it used or was given.
 */
async function clientRun(base: string): Promise<{ secrets: string[]; exchanges: number }> {
  const secrets = ['s3cret-admin', 'lab-ci-key-0123456789abcdef0123456789abcdef', md5('admin:s3cret-admin'), HOOK_SECRET, 'bob-pass-123', md5('bob:bob-pass-123'), 'sip-pass-999', '7531'];
  let exchanges = 0;
  const call = async (method: string, path: string, token?: string, data?: unknown) => {
    exchanges++;
    const r = await httpRequest(base, method, path, { token, data });
    expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
    return r.body;
  };
  const login = await call('PUT', '/v2/user_auth', undefined, { credentials: md5('admin:s3cret-admin'), account_name: 'Lab' });
  const token: string = login.auth_token;
  const master: string = login.data.account_id;
  const apiToken: string = (await call('PUT', '/v2/api_auth', undefined, { api_key: 'lab-ci-key-0123456789abcdef0123456789abcdef' })).auth_token;
  const customer = (await call('GET', `/v2/accounts/${master}/children`, token)).data.find((a: { name: string }) => a.name === 'Customer A').id;
  await call('GET', `/v2/accounts/${customer}/users`, token);
  const sub: string = (await call('PUT', `/v2/accounts/${master}`, apiToken, { name: 'Recorded Co' })).data.id;
  await call('POST', `/v2/accounts/${sub}`, token, { name: 'Recorded Co', timezone: 'Europe/Paris' });
  const key: string = (await call('GET', `/v2/accounts/${sub}/api_key`, token)).data.api_key;
  const subToken: string = (await call('PUT', '/v2/api_auth', undefined, { api_key: key })).auth_token;
  const bob: string = (await call('PUT', `/v2/accounts/${sub}/users`, subToken, { username: 'bob', password: 'bob-pass-123', first_name: 'Bob', last_name: 'Roe', priv_level: 'admin' })).data.id;
  await call('PUT', `/v2/accounts/${sub}/users`, subToken, { username: 'carol', first_name: 'Carol', last_name: 'Poe' });
  const bobToken: string = (await call('PUT', '/v2/user_auth', undefined, { credentials: md5('bob:bob-pass-123'), account_name: 'Recorded Co' })).auth_token;
  await call('GET', `/v2/accounts/${sub}/users?paginate=false`, bobToken);
  const device = (await call('PUT', `/v2/accounts/${sub}/devices`, bobToken, { name: 'Bob phone', owner_id: bob, sip: { username: 'bobphone', password: 'sip-pass-999' } })).data;
  await call('POST', `/v2/accounts/${sub}/devices/${device.id}`, bobToken, { ...device, name: 'Bob desk phone' });
  await call('PUT', `/v2/accounts/${sub}/vmboxes`, bobToken, { name: 'Bob', mailbox: '1001', owner_id: bob, pin: '7531' });
  await call('GET', `/v2/accounts/${sub}/devices`, bobToken);
  const hook = (await call('PUT', `/v2/accounts/${sub}/webhooks`, token, { name: 'CRM', uri: 'http://crm.invalid/calls', hook: 'channel_create', secret: HOOK_SECRET })).data;
  await call('PATCH', `/v2/accounts/${sub}/webhooks/${hook.id}`, token, { enabled: false });
  await call('GET', `/v2/accounts/${sub}/webhooks`, token);
  await call('GET', '/v2/token_auth', bobToken);
  await call('GET', `/v2/auth/tokeninfo?token=${encodeURIComponent(subToken)}`);
  await call('DELETE', `/v2/accounts/${sub}/devices/${device.id}`, bobToken);
  await call('GET', `/v2/accounts/${master}/descendants`, token);
  await call('DELETE', '/v2/token_auth', bobToken);
  return { secrets: [...secrets, token, apiToken, key, subToken, bobToken], exchanges };
}

/**
 * A server that answers one field differently: in front of a tel, it adds one to `retries` in
 * the answer to a webhook's creation (the Host sent on, so that the URLs answers hold are its own).
 */
async function oneFieldOff(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new Pool(upstream);
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['connection', 'content-length'].includes(k))) as Record<string, string>;
    const r = await pool.request({ path: req.url!, method: req.method as 'GET', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    let body = Buffer.from(await r.body.arrayBuffer());
    if (req.method === 'PUT' && /\/webhooks$/.test(req.url!) && r.statusCode === 201) {
      const json = JSON.parse(body.toString());
      json.data.retries += 1;
      body = Buffer.from(JSON.stringify(json));
    }
    res.writeHead(r.statusCode, { 'content-type': String(r.headers['content-type'] ?? 'application/json') }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool.close();
    },
  };
}

describe('tel record in front of a tel, tel diff against another', () => {
  const tmp = tempDir('tel-record-');
  const lab = join(tmp.dir, 'lab.yaml');
  const recording = join(tmp.dir, 'traffic.jsonl');
  const servers: TelProcess[] = [];
  let secrets: string[] = [];
  let exchanges = 0;
  /** fresh servers built from the lab, one a replay that writes */
  let fresh: string[];

  beforeAll(async () => {
    writeFileSync(lab, LAB);
    const [recorded, ...rest] = await Promise.all([1, 2, 3, 4].map(() => ephemeral(lab)));
    servers.push(recorded, ...rest);
    fresh = rest.map((s) => s.url);
    const record = startTel(['record', '--upstream', recorded.url, '--port', '0', '--out', recording, '--json']);
    servers.push(record);
    const { listening } = await record.until(() => record.json()[0], 'tel record to listen', 30_000);
    ({ secrets, exchanges } = await clientRun(String(listening)));
    await record.until(() => record.json().length === exchanges + 1, 'every exchange to be written');
    expect(await record.stop('SIGTERM')).toBe(0);
    expect(record.stderr).toBe(`tel record: stopping…\ntel record: ${exchanges} exchanges recorded in ${recording}\n`);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    tmp.cleanup();
  });

  it('writes one file, 0600, that holds no secret the client used, in clear or in the URL-encoded form', () => {
    expect(statSync(recording).mode & 0o777).toBe(0o600);
    const text = readFileSync(recording, 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('{"seq"'))).toHaveLength(exchanges);
    for (const secret of secrets) {
      if (secret.length < 8) {
        // a short secret (a voicemail PIN of 4 digits) turns up by chance inside the hex of the
        // ids and revisions the file holds (it did in a full run): leaked, it would stand as a
        // value of its own, between other characters than letters and digits
        const alone = new RegExp(`(?<![0-9A-Za-z])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`);
        expect(text, secret).not.toMatch(alone);
        continue;
      }
      expect(text, secret).not.toContain(secret);
      expect(text, secret).not.toContain(encodeURIComponent(secret));
    }
  });

  it('replayed against a fresh tel built from the same lab: every exchange identical, exit 0', async () => {
    const run = await runTel(['diff', recording, '--against', fresh[0], '--lab', lab, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ exchanges, identical: exchanges, differing: 0, failing: 0, skipped: 0, results: [] });
  }, 60_000);

  it('without the lab the first login fails, and the report says why; a server that answers a field differently is named, and an allow-list lets it pass', async () => {
    const off = await oneFieldOff(fresh[1]);
    try {
      const blind = await runTel(['diff', recording, '--against', off.url, '--json']);
      expect(blind.code).toBe(1);
      const first = JSON.parse(blind.stdout).results[0];
      expect(first).toMatchObject({ seq: 1, method: 'PUT', path: '/v2/user_auth', verdict: 'failing', status: { recorded: 201, replayed: 401 } });
      expect(first.reason).toMatch(/^it sends a login secret the replay could not find \(redacted:credentials:[0-9a-f]{16}\): give --lab/);
      // what follows a failed login fails for that reason
      expect(JSON.parse(blind.stdout).results[2]).toMatchObject({ seq: 3, verdict: 'failing', reason: expect.stringMatching(/^it sends the token of a login that failed in this replay \(redacted:token:[0-9a-f]{12}\)$/) });

      const html = join(tmp.dir, 'diff.html');
      const named = await runTel(['diff', recording, '--against', off.url, '--lab', lab, '--html', html]);
      expect(named.code).toBe(1);
      expect(named.stdout).toMatch(/^#\d+ PUT \/v2\/accounts\/[0-9a-f]{32}\/webhooks → differing\n {4}data\.retries: 2 → 3$/m);
      expect(named.stdout).toMatch(new RegExp(`replayed against ${off.url}/ in [\\d.]+ s: ${exchanges - 1} identical, 0 with allowed differences only, 1 differing, 0 failing, 0 skipped\\n$`));
      expect(named.stderr).toBe(`1 exchange of ${recording} came out differently outside the allow-list.\n`);
      const page = readFileSync(html, 'utf8');
      expect(page).toContain('<li>data.retries: 2 → 3</li>');
      expect(page.match(/<mark>\s*"retries": \d,<\/mark>/g)).toEqual(['<mark>    "retries": 2,</mark>', '<mark>    "retries": 3,</mark>']);

      const allow = join(tmp.dir, 'allow.txt');
      writeFileSync(allow, '# tel answers one more retry here\nPUT /v2/accounts/*/webhooks data.retries\n');
      // a fresh server for each replay that writes: the last one holds what it created
      const off2 = await oneFieldOff(fresh[2]);
      try {
        const allowed = await runTel(['diff', recording, '--against', off2.url, '--lab', lab, '--allow', allow]);
        expect(allowed.stderr).toBe('');
        expect(allowed.code).toBe(0);
        expect(allowed.stdout).toMatch(/→ allowed\n {4}data\.retries: 2 → 3 {2}\(allowed: line 2: PUT \/v2\/accounts\/\*\/webhooks data\.retries\)$/m);
      } finally {
        await off2.close();
      }
    } finally {
      await off.close();
    }
  }, 90_000);
});

describe('tel record and tel diff refuse what they cannot use, in one sentence', () => {
  const tmp = tempDir('tel-record-usage-');
  afterAll(() => tmp.cleanup());

  it('usage errors exit 2, a recording that exists exits 1; nothing is listened on or written', async () => {
    // a check that came too late would meet nothing a user runs: port 0, a host no DNS resolves (.invalid)
    const NOWHERE = 'http://tel.invalid:8000';
    const existing = join(tmp.dir, 'taken.jsonl');
    writeFileSync(existing, '');
    const allow = join(tmp.dir, 'allow.txt');
    writeFileSync(allow, 'data.a\nGET data.b\n');
    const cases: [string[], number, string][] = [
      [['record', '--upstream', 'ftp://kazoo.lab', '--port', '0'], 2, '--upstream must be an http or https URL, not ftp://kazoo.lab.\n'],
      [['record', '--upstream', 'http://kazoo.lab:8000/?x=1', '--port', '0'], 2, '--upstream takes no query, fragment or credentials.\n'],
      [['record', '--upstream', 'http://kazoo.lab:8000', '--port', 'x'], 2, '--port must be 0..65535, not x.\n'],
      [['record', '--upstream', 'http://kazoo.lab:8000', '--port', '0', '--out', existing], 1, `${existing} exists: record to another --out, or remove it first.\n`],
      [['diff', existing, '--against', 'kazoo'], 2, '--against must be a URL (http://host:port), not kazoo.\n'],
      [['diff', join(tmp.dir, 'none.jsonl'), '--against', NOWHERE], 2, `Cannot read ${join(tmp.dir, 'none.jsonl')}.\n`],
      [['diff', existing, '--against', NOWHERE, '--allow', allow], 2, `${allow}, line 2: a path starts with / (or *), not "GET".\n`],
      [['diff', existing, '--against', NOWHERE], 2, `${existing} is not a tel recording (its first line is not a tel record header).\n`],
    ];
    for (const [args, code, stderr] of cases) {
      const run = await runTel(args);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code, stderr });
    }
    expect(readFileSync(existing, 'utf8')).toBe('');
  });
});

const noDisk = smallDiskUnavailable();
describe.skipIf(noDisk)('a recording that can no longer be written (a full tmpfs)', () => {
  it('stops tel record, exit 1, saying why: no client goes on unrecorded', async () => {
    const disk = mountSmallDisk('1m');
    const upstream = createServer((req, res) => req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}')));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const out = join(disk.dir, 'traffic.jsonl');
    const record = startTel(['record', '--upstream', `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, '--port', '0', '--out', out, '--json']);
    try {
      const { listening } = await record.until(() => record.json()[0], 'tel record to listen', 30_000);
      // a bare upstream, not tel: plain requests
      expect((await fetch(`${listening}/v2/about`)).status).toBe(200);
      await record.until(() => record.json().length === 2, 'the first exchange to be written');
      disk.fill();
      await fetch(`${listening}/v2/accounts`, { method: 'PUT', body: JSON.stringify({ data: { name: 'x'.repeat(64 * 1024) } }) });
      await until(() => record.child.exitCode !== null, `tel record to stop:\n${record.stdout}${record.stderr}`, 20_000).catch((e) => {
        throw new Error(`${e.message}\n${record.stdout}${record.stderr}`);
      });
      expect(record.child.exitCode).toBe(1);
      expect(record.stderr).toMatch(new RegExp(`^tel record: stopping…\\nThe recording failed \\(cannot record an exchange: ENOSPC: no space left on device, write\\); ${out} holds what came before\\.\\n$`));
    } finally {
      await record.stop();
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
      disk.cleanup();
    }
  }, 60_000);
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel } from '../../../test/helpers/cli.js';
import { createSubAccount, startTestServer, tempDir, type TestServer } from '../../../test/helpers/server.js';

const TEMPLATE = {
  cb_user_auth: {
    user: { users: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '#': ['GET'] } }] },
  },
  _: {
    admin: {
      devices: [
        { allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '/': ['GET', 'PUT'], '*': ['GET'], '*/sync': [] } },
        { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '#': ['_'] } },
      ],
      token_auth: { rules: { '/': ['GET'] } },
    },
  },
};

describe('tel restrictions', () => {
  let srv: TestServer;
  let a: { id: string; apiKey: string };
  let child: { id: string; apiKey: string };
  let clerk: string;
  let tmp: { dir: string; cleanup: () => void };
  const tel = (...args: string[]) => runTel([...args, '--db', srv.dbFile]);

  beforeAll(async () => {
    srv = await startTestServer();
    tmp = tempDir();
    a = await createSubAccount(srv, srv.master.account_id, 'Cli Co');
    child = await createSubAccount(srv, a.id, 'Cli Child');
    const u = await srv.request('PUT', `/v2/accounts/${a.id}/users`, { token: srv.adminToken, data: { username: 'clerk', password: 'pw-123456', first_name: 'F', last_name: 'L', priv_level: 'user' } });
    clerk = u.body.data.id;
  });
  afterAll(async () => {
    await srv.close();
    tmp.cleanup();
  });

  describe('get, set and delete', () => {
    it('get without a template exits 1 with one sentence', async () => {
      const r = await tel('restrictions', 'get', '--account', a.id);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe('Not found: token_restrictions.');
    });

    it('set takes JSON, answers JSON with --json, and get shows it', async () => {
      const set = await tel('restrictions', 'set', JSON.stringify(TEMPLATE), '--account', a.id, '--json');
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout)).toEqual({ restrictions: TEMPLATE });
      const get = await tel('restrictions', 'get', '--account', a.id);
      expect(JSON.parse(get.stdout)).toEqual(TEMPLATE);
      const api = await srv.request('GET', `/v2/accounts/${a.id}/token_restrictions`, { token: srv.adminToken });
      expect(api.body.data).toEqual({ restrictions: TEMPLATE });
    });

    it('set reads @file and stdin, and accepts the {"restrictions": …} wrapper', async () => {
      const file = join(tmp.dir, 'template.json');
      writeFileSync(file, JSON.stringify({ restrictions: { _: { _: { users: [] } } } }));
      expect((await tel('restrictions', 'set', `@${file}`, '--account', child.id)).code).toBe(0);
      expect(JSON.parse((await tel('restrictions', 'get', '--account', child.id)).stdout)).toEqual({ _: { _: { users: [] } } });
      const viaStdin = await runTel(['restrictions', 'set', '-', '--account', child.id, '--db', srv.dbFile], { stdin: '{"_":{"_":{"devices":[]}}}' });
      expect(viaStdin.code).toBe(0);
      expect(viaStdin.stdout).toMatch(/^Saved the restriction template of account/);
    });

    it('set refuses an invalid template with the field and rule, exit 1', async () => {
      const r = await tel('restrictions', 'set', '{"_":{"_":{"devices":[{"rules":{"#":["FETCH"]}}]}}}', '--account', child.id);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe('Refused: restrictions._._.devices.0.rules.#.0: Value not found in enumerated list of values (one of: GET, PUT, POST, PATCH, DELETE, _).');
    });

    it('set refuses text that is not JSON as a usage error', async () => {
      expect((await tel('restrictions', 'set', '{nope', '--account', child.id)).code).toBe(2);
    });

    it('delete removes the template', async () => {
      const r = await tel('restrictions', 'delete', '--account', child.id, '--json');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ restrictions: { _: { _: { devices: [] } } }, _read_only: { deleted: true } });
      expect((await tel('restrictions', 'get', '--account', child.id)).code).toBe(1);
    });
  });

  describe('test: a dry run that explains', () => {
    it('explains an allowed request step by step, exit 0', async () => {
      const r = await tel('restrictions', 'test', `/v2/accounts/${a.id}/devices/d1`, 'GET', '--account', a.id);
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n').filter(Boolean)).toEqual([
        `allowed: GET /v2/accounts/${a.id}/devices/d1`,
        `  Template: the account template of ${a.id}, method key \`_\`, level key \`admin\` for level \`admin\` (no user: default_priv_level).`,
        "  Endpoint: the request's endpoint is `devices`; the rules have an entry for it (2 rule objects).",
        `  Account: the path names account ${a.id}, the token's own account; rule object #1 lists \`{AUTH_ACCOUNT_ID}\`.`,
        '  Arguments: the arguments `d1` match key `*` of rule object #1, after `/` did not.',
        '  Verb: key `*` lists GET.',
        "  Allowed by the token's rules.",
      ]);
    });

    it('explains a denied request, exit 1, with one sentence on stderr', async () => {
      const r = await tel('restrictions', 'test', `accounts/${a.id}/devices/d1/sync`, 'post', '--account', a.id);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`denied: POST /v2/accounts/${a.id}/devices/d1/sync`);
      expect(r.stdout).toContain('Verb: key `*/sync` has an empty verb list, which allows no method.');
      expect(r.stderr.trim()).toBe('Denied by the token restrictions at the verb step.');
    });

    it('a user is judged at their privilege level under cb_user_auth', async () => {
      const r = await tel('restrictions', 'test', `/v2/accounts/${a.id}/devices`, 'GET', '--account', a.id, '--user', clerk, '--json');
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out.subject).toMatchObject({ method: 'cb_user_auth', selection: { source: 'account', method_key: 'cb_user_auth', priv_level: 'user', priv_level_from: 'user', priv_key: 'user' } });
      expect(out.failed_step).toBe('endpoint');
      expect(out.template.endpoint.tried).toEqual(['devices', '_']);
    });

    it('--auth-method chooses another method key', async () => {
      const r = await tel('restrictions', 'test', `/v2/accounts/${a.id}/users`, 'GET', '--account', a.id, '--user', clerk, '--auth-method', 'cb_api_auth', '--json');
      expect(JSON.parse(r.stdout).subject.selection).toMatchObject({ method_key: '_', priv_key: null, rules: null });
      expect(r.code).toBe(0);
    });

    it('--json gives the whole decision: request, subject, each step, explanation', async () => {
      const r = await tel('restrictions', 'test', `/v1/accounts/${child.id}/devices/x/y`, 'DELETE', '--account', a.id, '--json');
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({
        allowed: true,
        failed_step: null,
        request: { method: 'DELETE', uri: `/v1/accounts/${child.id}/devices/x/y`, endpoint: 'devices', arguments: ['x', 'y'], account_id: child.id },
        template: {
          allowed: true,
          endpoint: { key: 'devices', ruleObjects: 2 },
          account: { index: 1, via: '{DESCENDANT_ACCOUNT_ID}' },
          arguments: { key: '#' },
          verb: { via: '_' },
          request: { accountRelation: 'descendant' },
        },
        login: null,
      });
      expect(out.explanation.length).toBeGreaterThan(4);
    });

    it('a super-duper admin is never restricted', async () => {
      const r = await tel('restrictions', 'test', `/v2/accounts/${a.id}/devices/d1/sync`, 'POST', '--account', srv.master.account_id);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('is a super-duper admin; its tokens are never restricted.');
    });

    it('notes when the account in the path is outside the token account tree', async () => {
      const r = await tel('restrictions', 'test', `/v2/accounts/${srv.master.account_id}/devices`, 'GET', '--account', child.id, '--json');
      const out = JSON.parse(r.stdout);
      expect(out.account_access).toBe(false);
      expect(out.explanation.at(-1)).toMatch(/^Note: account [0-9a-f]{32} is not the token's account or one of its descendants/);
      const own = await tel('restrictions', 'test', `/v2/accounts/${child.id}/devices`, 'GET', '--account', a.id, '--json');
      expect(JSON.parse(own.stdout).account_access).toBe(true);
    });

    it('refuses a path that cannot be parsed for a restricted token', async () => {
      const r = await tel('restrictions', 'test', `/v2/accounts/${a.id}/devices/../users`, 'GET', '--account', a.id);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Endpoint: the path cannot name anything tel serves');
    });

    it.each([
      [['GET', '--token', 't', '--account', 'x'], 'Give either --token or --account.'],
      [['GET'], 'Give either --token or --account.'],
      [['FETCH', '--account', 'x'], 'The method must be one of GET, PUT, POST, PATCH, DELETE.'],
      [['GET', '--token', 't', '--user', 'u'], '--user and --auth-method go with --account, not --token.'],
    ])('usage errors exit 2: %j', async (args, message) => {
      const r = await tel('restrictions', 'test', '/v2/token_auth', ...(args as string[]));
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(message);
    });

    it('an unknown token exits 1', async () => {
      const r = await tel('restrictions', 'test', '/v2/token_auth', 'GET', '--token', 'nope');
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe('No such token.');
    });
  });

  describe('the dry run and the server agree', () => {
    it('on a stored token, request by request', async () => {
      const token = await srv.apiLogin(a.apiKey);
      const cases: [string, string][] = [
        ['GET', `/v2/accounts/${a.id}/devices`],
        ['PUT', `/v2/accounts/${a.id}/devices`],
        ['DELETE', `/v2/accounts/${a.id}/devices`],
        ['GET', `/v2/accounts/${a.id}/users`],
        ['GET', `/v2/accounts/${child.id}/devices`],
        ['POST', `/v2/accounts/${a.id}/devices/0123456789abcdef0123456789abcdef`],
        ['GET', '/v2/token_auth'],
        ['DELETE', '/v2/token_auth'],
        ['GET', `/v1/accounts/${a.id.toUpperCase()}/DEVICES/`],
        ['GET', '/v2/webhooks'],
        ['GET', '/v2/webhooks/samples'],
        ['POST', '/v2/webhooks'],
        ['GET', `/v2/accounts/${a.id}/webhooks`],
      ];
      for (const [method, uri] of cases) {
        const http = await srv.request(method, uri, { token, data: method === 'PUT' ? { name: 'n' } : undefined });
        const dry = await tel('restrictions', 'test', uri, method, '--token', token, '--json');
        const restricted = http.status === 403 && http.body.data.cause === 'access denied by token restrictions';
        expect({ method, uri, denied: dry.code === 1 }).toEqual({ method, uri, denied: restricted });
        if (restricted) expect(JSON.parse(dry.stdout).failed_step).toBe(http.body.data.step);
      }
    });

    it('a token whose login restrictions deny what its template allows: exit 1 at the login step, as the server answers 403', async () => {
      const token = await srv.apiLogin(a.apiKey, { get: ['token_auth'] });
      const uri = `/v2/accounts/${a.id}/devices`;
      const http = await srv.request('GET', uri, { token });
      expect(http.status).toBe(403);
      expect(http.body.data).toMatchObject({ cause: 'access denied by token restrictions', step: 'login' });
      const dry = await tel('restrictions', 'test', uri, 'GET', '--token', token, '--json');
      expect(dry.code).toBe(1);
      expect(JSON.parse(dry.stdout)).toMatchObject({ allowed: false, failed_step: 'login', template: { allowed: true }, login: { allowed: false } });
      expect(dry.stderr.trim()).toBe('Denied by the token restrictions at the login step.');
      const allowed = await tel('restrictions', 'test', '/v2/token_auth', 'GET', '--token', token);
      expect(allowed.code).toBe(0);
      expect(allowed.stdout).toContain('allowed: GET /v2/token_auth');
    });

    it('a path that needs no token is allowed whatever the rules, as the server does', async () => {
      const token = await srv.apiLogin(a.apiKey);
      expect((await srv.request('GET', '/v2/webhooks', { token })).status).toBe(200);
      const r = await tel('restrictions', 'test', 'http://127.0.0.1:8000/v2/webhooks', 'GET', '--token', token);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('allowed: GET /v2/webhooks');
      expect(r.stdout).toContain('The endpoint needs no token; the server checks no restrictions on it.');
    });

    it('an expired token is refused with exit 1, as the server answers 401', async () => {
      const token = await srv.apiLogin(a.apiKey);
      const { DatabaseSync } = await import('node:sqlite');
      const other = new DatabaseSync(srv.dbFile, { timeout: 5000 });
      const { tokenKey } = await import('../auth/service.js');
      other.prepare('UPDATE tokens SET modified = ? WHERE id = ?').run(Date.now() - 2 * 3600_000, tokenKey(token));
      other.close();
      const dry = await tel('restrictions', 'test', '/v2/token_auth', 'GET', '--token', token);
      expect(dry.code).toBe(1);
      expect(dry.stderr.trim()).toBe('The token has expired (unused for longer than token_expiry_s, 3600 s); the server answers 401.');
      expect((await srv.request('GET', '/v2/token_auth', { token })).status).toBe(401);
    });

    it('the dry run names the token and says later template changes do not apply', async () => {
      const token = await srv.apiLogin(a.apiKey, { get: ['#'] });
      const r = await tel('restrictions', 'test', '/v2/token_auth', 'GET', '--token', token);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Token: cb_api_auth for account ${a.id}; rules copied at login plus restrictions from the login payload (later template changes do not apply).`);
      expect(r.stdout).toContain('Login restrictions: `token_auth` matches pattern `#` under `get`; allowed.');
    });
  });

  describe('tel tokens create --restrictions', () => {
    it('stores the given endpoint rules on the token, which the server then enforces', async () => {
      const rules = { users: [{ rules: { '#': ['GET'] } }] };
      const r = await tel('tokens', 'create', '--account', child.id, '--restrictions', JSON.stringify(rules), '--json');
      expect(r.code).toBe(0);
      const { token } = JSON.parse(r.stdout);
      expect((await srv.request('GET', `/v2/accounts/${child.id}/users`, { token })).status).toBe(200);
      expect((await srv.request('GET', `/v2/accounts/${child.id}/devices`, { token })).status).toBe(403);
      const dry = await tel('restrictions', 'test', `/v2/accounts/${child.id}/devices`, 'GET', '--token', token);
      expect(dry.code).toBe(1);
    });

    it('refuses invalid endpoint rules as a usage error, naming the field', async () => {
      const r = await tel('tokens', 'create', '--account', child.id, '--restrictions', '{"users":[{"rules":{"#":["get"]}}]}');
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe('--restrictions is not valid: restrictions.users.0.rules.#.0: Value not found in enumerated list of values (one of: GET, PUT, POST, PATCH, DELETE, _).');
    });
  });
});

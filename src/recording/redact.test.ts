import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RecordedExchange } from './format.js';
import { Redactor } from './redact.js';
import { saltedPlaceholder } from './secrets.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJhY2NvdW50X2lkIjoiYWJjIn0.c2lnbmF0dXJlLXBhcnQ';
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

function exchange(request: Partial<RecordedExchange['request']>, response?: Partial<NonNullable<RecordedExchange['response']>>): RecordedExchange {
  return {
    seq: 1,
    at_ms: 0,
    request: { method: 'PUT', path: '/v2/x', query: '', headers: {}, body_bytes: 0, ...request },
    response: response ? { status: 200, headers: {}, body_bytes: 0, ...response } : undefined,
  };
}

describe('what the recorder takes out of an exchange', () => {
  it('every kind of secret, wherever it is, becomes a placeholder, the same one for the same secret', async () => {
    const salt = randomBytes(16);
    const r = new Redactor(salt);
    const secrets = {
      credentials: md5('admin:s3cret'),
      apiKey: 'lab-ci-key-0123456789abcdef0123456789abcdef',
      password: 'hunter22',
      sip: 'sip-pass-999',
      hook: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      pin: '4321',
      basic: 'dXNlcjpwYXNz',
      cookie: 'sess-abcdef123456',
      uriPass: 'urlpass77',
      other: 'opaque-token-0123456789',
    };
    const ex = exchange(
      {
        path: `/v2/user_auth/${JWT}`,
        query: `auth_token=${JWT}&filter_name=bob&api_key=${secrets.apiKey}`,
        headers: { 'x-auth-token': JWT, authorization: `Basic ${secrets.basic}`, cookie: `a=${secrets.cookie}; b=${secrets.cookie}`, referer: `http://ui/?t=${JWT}` },
        body: {
          data: {
            credentials: secrets.credentials,
            account_name: 'Lab',
            username: 'Bob',
            password: secrets.password,
            sip: { username: 'bobphone', password: secrets.sip },
            secret: secrets.hook,
            pin: secrets.pin,
            uri: `http://crm:${secrets.uriPass}@crm.example/hook`,
            refresh_token: secrets.other,
          },
        },
      },
      {
        headers: { 'set-cookie': [`sid=${secrets.cookie}; Path=/`] },
        body: { auth_token: JWT, data: { id: JWT, api_key: secrets.apiKey, echoed: secrets.password, note: `token ${JWT} ends`, message: 'ok' } },
      },
    );
    await r.redact(ex);
    const text = JSON.stringify(ex);
    for (const secret of [JWT, ...Object.values(secrets)]) expect(text, secret).not.toContain(secret);
    // what is no secret stays
    expect(ex.request.body).toMatchObject({ data: { account_name: 'Lab', username: 'Bob', sip: { username: 'bobphone' } } });
    expect(ex.request.query).toMatch(/&filter_name=bob&/);
    const body = ex.response!.body as { auth_token: string; data: Record<string, string> };
    // the same secret, the same placeholder: in a header, a path, a query, an envelope, an id, a sentence
    expect(ex.request.headers['x-auth-token']).toBe(body.auth_token);
    expect(body.data.id).toBe(body.auth_token);
    expect(ex.request.path).toBe(`/v2/user_auth/${body.auth_token}`);
    expect(body.data.note).toBe(`token ${body.auth_token} ends`);
    expect(body.data.echoed).toBe((ex.request.body as { data: { password: string } }).data.password);
    expect(ex.request.headers.authorization).toMatch(/^Basic redacted:token:[0-9a-f]{12}$/);
    expect(ex.request.headers.cookie).toMatch(/^a=(redacted:token:[0-9a-f]{12}); b=\1$/);
    // placeholders that still fit where the secret went: digits for a pin, whsec_ for a signing secret
    const data = (ex.request.body as { data: Record<string, string> }).data;
    expect(data.pin).toMatch(/^\d{4}$/);
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(data.uri).toMatch(/^http:\/\/crm:redacted:password:[0-9a-f]{12}@crm\.example\/hook$/);
    // login secrets: a salted hash a lab's secret can be matched to
    expect(data.credentials).toBe(await saltedPlaceholder('credentials', secrets.credentials, salt));
    expect(body.data.api_key).toBe(await saltedPlaceholder('api_key', secrets.apiKey, salt));
    expect(body.data.message).toBe('ok');
  });

  it('announces each placeholder once, and the login forms of a password the client sets', async () => {
    const r = new Redactor(randomBytes(16));
    await r.redact(exchange({ body: { data: { username: 'Bob', password: 'bob-pass' } } }));
    const lines = r.takeMinted();
    const password = lines.find((l) => l.kind === 'password')!.secret;
    expect(lines.filter((l) => l.login).map((l) => l.login)).toEqual([
      { username: 'Bob', password, form: 'md5' },
      { username: 'Bob', password, form: 'sha1' },
    ]);
    // the client then logs in with the md5 form: the placeholder announced above, no new line
    const login = exchange({ body: { data: { credentials: md5('bob:bob-pass') } } });
    await r.redact(login);
    expect((login.request.body as { data: { credentials: string } }).data.credentials).toBe(lines.find((l) => l.login?.form === 'md5')!.secret);
    expect(r.takeMinted()).toEqual([]);
  });

  it('redacts a JWT on sight, where no field names it', async () => {
    const r = new Redactor(randomBytes(16));
    const ex = exchange({ path: `/v2/shared/${JWT}`, body: { data: { link: `https://ui.example/?t=${JWT}#x` } } });
    await r.redact(ex);
    expect(JSON.stringify(ex)).not.toContain(JWT);
    expect(ex.request.path).toMatch(/^\/v2\/shared\/redacted:token:[0-9a-f]{12}$/);
  });

  it('leaves what only looks like a secret: "null" tokens, the words of a validation error, short strings', async () => {
    const r = new Redactor(randomBytes(16));
    const ex = exchange(
      { headers: { 'x-auth-token': 'null' }, body: { data: { password: 'abc' } } },
      { status: 400, body: { auth_token: 'null', data: { password: { minLength: { message: 'Length must be at least 6', value: 'abc', target: 6 } } } } },
    );
    await r.redact(ex);
    expect(ex.request.headers['x-auth-token']).toBe('null');
    const error = (ex.response!.body as { auth_token: string; data: { password: { minLength: Record<string, unknown> } } });
    expect(error.auth_token).toBe('null');
    expect(error.data.password.minLength.message).toBe('Length must be at least 6');
    expect(error.data.password.minLength.target).toBe(6);
    expect(error.data.password.minLength.value).not.toBe('abc');
  });
});

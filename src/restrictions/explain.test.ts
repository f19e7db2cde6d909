import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { decide } from './decide.js';
import { explain, explainCheck, explainLogin } from './explain.js';
import { compileLogin, decideLogin } from './login.js';
import type { EndpointRules, RestrictionRequest } from './types.js';

const AUTH = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const CHILD = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const subject = { accountId: AUTH, isDescendant: (id: string) => id === CHILD };
const req = (over: Partial<RestrictionRequest> = {}): RestrictionRequest => ({
  method: 'GET',
  endpoint: 'devices',
  args: [],
  accountId: AUTH,
  segments: ['accounts', AUTH, 'devices'],
  ...over,
});

const rules: EndpointRules = {
  devices: [
    { allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '/': ['GET'], '*': ['GET', 'POST'], '*/sync': [] } },
    { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '#': ['_'] } },
  ],
  _: { rules: { '#': ['GET'] } },
};

describe('explaining a decision step by step', () => {
  const table: { name: string; req: RestrictionRequest; lines: string[] }[] = [
    {
      name: 'an allowed request names the entry, rule object, key and verb',
      req: req({ args: ['d1'] }),
      lines: [
        'Endpoint: the request\'s endpoint is `devices`; the rules have an entry for it (2 rule objects).',
        "Account: the path names account aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, the token's own account; rule object #1 lists `{AUTH_ACCOUNT_ID}`.",
        'Arguments: the arguments `d1` match key `*` of rule object #1, after `/` did not.',
        'Verb: key `*` lists GET.',
        "Allowed by the token's rules.",
      ],
    },
    {
      name: 'a descendant account is matched by the second rule object with _ as verb',
      req: req({ method: 'DELETE', accountId: CHILD, args: ['d1', 'x'] }),
      lines: [
        'Endpoint: the request\'s endpoint is `devices`; the rules have an entry for it (2 rule objects).',
        "Account: the path names account bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, a descendant of the token's account; rule object #2 lists `{DESCENDANT_ACCOUNT_ID}`.",
        'Arguments: the arguments `d1/x` match key `#` of rule object #2.',
        'Verb: key `#` lists `_`, which allows any method, DELETE included.',
        "Allowed by the token's rules.",
      ],
    },
    {
      name: 'a denied verb says which verbs the key allows',
      req: req({ method: 'DELETE', args: ['d1'] }),
      lines: [
        'Endpoint: the request\'s endpoint is `devices`; the rules have an entry for it (2 rule objects).',
        "Account: the path names account aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, the token's own account; rule object #1 lists `{AUTH_ACCOUNT_ID}`.",
        'Arguments: the arguments `d1` match key `*` of rule object #1, after `/` did not.',
        'Verb: key `*` allows GET, POST, not DELETE.',
        "Denied by the token's rules at the verb step.",
      ],
    },
    {
      name: 'an empty verb list is called out',
      req: req({ args: ['d1', 'sync'] }),
      lines: [
        'Endpoint: the request\'s endpoint is `devices`; the rules have an entry for it (2 rule objects).',
        "Account: the path names account aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, the token's own account; rule object #1 lists `{AUTH_ACCOUNT_ID}`.",
        'Arguments: the arguments `d1/sync` match key `*/sync` of rule object #1, after `/`, `*` did not.',
        'Verb: key `*/sync` has an empty verb list, which allows no method.',
        "Denied by the token's rules at the verb step.",
      ],
    },
    {
      name: 'unmatched arguments list the keys tried and skip the verb',
      req: req({ args: ['d1', 'a', 'b'] }),
      lines: [
        'Endpoint: the request\'s endpoint is `devices`; the rules have an entry for it (2 rule objects).',
        "Account: the path names account aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, the token's own account; rule object #1 lists `{AUTH_ACCOUNT_ID}`.",
        'Arguments: the arguments `d1/a/b` match none of the keys of rule object #1 (`/`, `*`, `*/sync`).',
        'Verb: not reached.',
        "Denied by the token's rules at the arguments step.",
      ],
    },
    {
      name: 'an account outside the tree fails at the account step',
      req: req({ accountId: 'cccccccccccccccccccccccccccccccc' }),
      lines: [
        'Endpoint: the request\'s endpoint is `devices`; the rules have an entry for it (2 rule objects).',
        "Account: the path names account cccccccccccccccccccccccccccccccc, which is not the token's own account; none of the 2 rule objects allows it.",
        'Arguments: not reached.',
        'Verb: not reached.',
        "Denied by the token's rules at the account step.",
      ],
    },
    {
      name: 'the catch-all entry written as one object is named as such',
      req: req({ endpoint: 'token_auth', accountId: undefined, segments: ['token_auth'] }),
      lines: [
        'Endpoint: the request\'s endpoint is `token_auth`; the rules have no entry for it, so the catch-all `_` entry is used (1 rule object, written as a single object).',
        'Account: the path names no account; rule object #1 has no `allowed_accounts`, which means any account.',
        'Arguments: no arguments match key `#` of rule object #1.',
        'Verb: key `#` lists GET.',
        "Allowed by the token's rules.",
      ],
    },
  ];

  it.each(table)('$name', ({ req: r, lines }) => {
    expect(explain(decide(rules, r, subject))).toEqual(lines);
  });

  it('a missing endpoint stops at the first step', () => {
    const lines = explain(decide({ users: [] }, req(), subject));
    expect(lines[0]).toBe('Endpoint: the request\'s endpoint is `devices`; the rules have no entry for it and no catch-all `_` entry.');
    expect(lines.slice(1)).toEqual(['Account: not reached.', 'Arguments: not reached.', 'Verb: not reached.', "Denied by the token's rules at the endpoint step."]);
  });

  it('says how the account matched, or that there was nothing to match, and when a rule object has no keys', () => {
    const line = (r: EndpointRules, step: number) => explain(decide(r, req(), subject))[step];
    const own = "Account: the path names account aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, the token's own account;";
    expect(line({ devices: [{ allowed_accounts: ['_'], rules: { '/': ['GET'] } }] }, 1)).toBe(`${own} rule object #1 lists \`_\`, which means any account.`);
    expect(line({ devices: [{ allowed_accounts: [AUTH], rules: { '/': ['GET'] } }] }, 1)).toBe(`${own} rule object #1 lists that account id.`);
    expect(line({ devices: [] }, 1)).toBe(`${own} the endpoint entry holds no rule objects.`);
    expect(line({ devices: [{ rules: {} }] }, 2)).toBe('Arguments: rule object #1 has no argument keys, so no arguments match nothing.');
  });

  it('a request without an account explains which entries could match', () => {
    const lines = explain(decide({ token_auth: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: {} }] }, req({ endpoint: 'token_auth', accountId: undefined }), subject));
    expect(lines[1]).toBe('Account: the path names no account; the only rule object does not allow it (without an account in the path only a missing `allowed_accounts` or `_` matches).');
  });
});

describe('explaining restrictions given at login', () => {
  it('names the pattern that matched', () => {
    expect(explainLogin(decideLogin({ get: ['#'] }, 'GET', ['token_auth']))).toEqual(['Login restrictions: `token_auth` matches pattern `#` under `get`; allowed.']);
  });
  it('says when no pattern applies to the method', () => {
    expect(explainLogin(decideLogin({ get: ['#'] }, 'PUT', ['token_auth']))).toEqual(['Login restrictions: there are no patterns under `put` or `*`; denied.']);
  });
  it('a method written `*` looks under `*` once', () => {
    expect(decideLogin({ '*': ['users'] }, '*', ['token_auth']).keys).toEqual(['*']);
  });
  it('restrictions that are not an object allow nothing', () => {
    expect(compileLogin(undefined as never).size).toBe(0);
    expect(compileLogin('#' as never).size).toBe(0);
  });
  it('lists the keys whose patterns missed', () => {
    expect(explainLogin(decideLogin({ get: ['accounts/#'], '*': ['users'] }, 'GET', ['token_auth']))).toEqual(['Login restrictions: `token_auth` matches no pattern under `get`, `*`; denied.']);
  });
});

describe('checking both forms together', () => {
  it('passes a token that carries nothing', () => {
    const c = checkRequest({}, req(), subject);
    expect(c).toEqual({ allowed: true });
    expect(explainCheck(c)).toEqual(['The token carries no restrictions; every request passes this check.']);
  });

  it('denies when the template allows but the login form does not', () => {
    const c = checkRequest({ rules, login: { get: ['token_auth'] } }, req({ args: ['d1'] }), subject);
    expect(c.allowed).toBe(false);
    expect(c.failedStep).toBe('login');
    expect(c.template?.allowed).toBe(true);
  });

  it('denies when the login form allows but the template does not, reporting the template step', () => {
    const c = checkRequest({ rules, login: { '*': ['#'] } }, req({ method: 'DELETE', args: ['d1'] }), subject);
    expect(c.allowed).toBe(false);
    expect(c.failedStep).toBe('verb');
    expect(c.login?.allowed).toBe(true);
  });

  it('allows when both forms allow', () => {
    const c = checkRequest({ rules, login: { get: ['accounts/#'] } }, req({ args: ['d1'], segments: ['accounts', AUTH, 'devices', 'd1'] }), subject);
    expect(c.allowed).toBe(true);
    const lines = explainCheck(c);
    expect(lines[0]).toMatch(/^Endpoint: /);
    expect(lines.at(-1)).toBe('Login restrictions: `accounts/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/devices/d1` matches pattern `accounts/#` under `get`; allowed.');
  });

  it('explains the template alone when there are no login restrictions', () => {
    const lines = explainCheck(checkRequest({ rules }, req({ args: ['d1'] }), subject));
    expect(lines[0]).toMatch(/^Endpoint: /);
    expect(lines.at(-1)).toBe("Allowed by the token's rules.");
  });

  it('applies the login form alone when there are no template rules', () => {
    const c = checkRequest({ login: { get: ['#'] } }, req({ method: 'PUT' }), subject);
    expect(c).toMatchObject({ allowed: false, failedStep: 'login' });
    expect(explainCheck(c)[0]).toBe('The token carries no template rules.');
  });
});

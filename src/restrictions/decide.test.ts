import { describe, expect, it, vi } from 'vitest';
import { compileRules } from './compile.js';
import { decide } from './decide.js';
import type { EndpointRules, RestrictionStep } from './types.js';

const AUTH = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const CHILD = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const STRANGER = 'cccccccccccccccccccccccccccccccc';
const subject = { accountId: AUTH, isDescendant: (id: string) => id === CHILD };

interface Scenario {
  name: string;
  rules: EndpointRules;
  method?: string;
  endpoint?: string;
  args?: string[];
  account?: string;
  allowed: boolean;
  failedStep?: RestrictionStep;
  endpointKey?: string;
  index?: number;
  via?: string;
  argKey?: string;
  verbVia?: string;
}

const scenarios: Scenario[] = [
  {
    name: 'an endpoint entry written as a single object counts as a one-element array',
    rules: { devices: { allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '#': ['GET'] } } },
    account: AUTH, allowed: true, endpointKey: 'devices', index: 0, via: '{AUTH_ACCOUNT_ID}', argKey: '#', verbVia: 'GET',
  },
  {
    name: 'a single-object catch-all entry is used for an unlisted endpoint',
    rules: { _: { rules: { '#': ['_'] } } },
    endpoint: 'callflows', account: AUTH, allowed: true, endpointKey: '_', via: '(missing)', verbVia: '_',
  },
  {
    name: 'an empty verb list allows nothing',
    rules: { devices: [{ rules: { '#': [] } }] },
    account: AUTH, allowed: false, failedStep: 'verb', argKey: '#',
  },
  {
    name: 'the first matching key decides even when a later key would allow',
    rules: { devices: [{ rules: { '#': ['GET'], '*': ['_'] } }] },
    method: 'DELETE', args: ['x'], account: AUTH, allowed: false, failedStep: 'verb', argKey: '#',
  },
  {
    name: 'the first rule object matching the account decides, later objects are not tried',
    rules: { devices: [{ allowed_accounts: ['_'], rules: { '/': ['GET'] } }, { rules: { '#': ['_'] } }] },
    args: ['x'], account: AUTH, allowed: false, failedStep: 'arguments', index: 0,
  },
  {
    name: 'a later rule object is chosen when the first does not match the account',
    rules: { devices: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '#': ['_'] } }, { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '*': ['GET'] } }] },
    args: ['x'], account: CHILD, allowed: true, index: 1, via: '{DESCENDANT_ACCOUNT_ID}', argKey: '*',
  },
  {
    name: 'the descendant macro does not cover the token account itself',
    rules: { devices: [{ allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '#': ['_'] } }] },
    account: AUTH, allowed: false, failedStep: 'account',
  },
  {
    name: 'the token-account macro covers the token account',
    rules: { devices: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '#': ['_'] } }] },
    account: AUTH, allowed: true, via: '{AUTH_ACCOUNT_ID}',
  },
  {
    name: 'no macro covers an account outside the tree',
    rules: { devices: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}', '{DESCENDANT_ACCOUNT_ID}'], rules: { '#': ['_'] } }] },
    account: STRANGER, allowed: false, failedStep: 'account',
  },
  {
    name: '_ anywhere in allowed_accounts matches any account',
    rules: { devices: [{ allowed_accounts: [CHILD, '_'], rules: { '#': ['_'] } }] },
    account: STRANGER, allowed: true, via: '_',
  },
  {
    name: 'a request without an account matches a rule object without allowed_accounts',
    rules: { token_auth: [{ rules: { '/': ['GET'] } }] },
    endpoint: 'token_auth', allowed: true, via: '(missing)',
  },
  {
    name: 'a request without an account does not match account macros',
    rules: { token_auth: [{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '/': ['GET'] } }] },
    endpoint: 'token_auth', allowed: false, failedStep: 'account',
  },
  {
    name: 'a request without an account does not match an explicit account id',
    rules: { token_auth: [{ allowed_accounts: [AUTH], rules: { '/': ['GET'] } }] },
    endpoint: 'token_auth', allowed: false, failedStep: 'account',
  },
  {
    name: 'an explicit id of the token account matches the token account',
    rules: { devices: [{ allowed_accounts: [AUTH], rules: { '#': ['_'] } }] },
    account: AUTH, allowed: true, via: AUTH,
  },
  {
    name: 'an id in capitals in allowed_accounts still matches',
    rules: { devices: [{ allowed_accounts: [CHILD.toUpperCase()], rules: { '#': ['_'] } }] },
    account: CHILD, allowed: true, via: CHILD,
  },
  {
    name: 'an exact endpoint entry that is an empty array does not fall back to _',
    rules: { devices: [], _: [{ rules: { '#': ['_'] } }] },
    account: AUTH, allowed: false, failedStep: 'account', endpointKey: 'devices',
  },
  {
    name: 'an endpoint entry that is not an object or array is ignored in favour of _',
    rules: { devices: 'nope' as never, _: [{ rules: { '#': ['_'] } }] },
    account: AUTH, allowed: true, endpointKey: '_',
  },
  {
    name: 'no entry and no catch-all fails at the endpoint step',
    rules: { users: [{ rules: { '#': ['_'] } }] },
    account: AUTH, allowed: false, failedStep: 'endpoint',
  },
  {
    name: 'an empty rule set denies everything',
    rules: {},
    account: AUTH, allowed: false, failedStep: 'endpoint',
  },
  {
    name: 'a rule object without rules fails at the arguments step',
    rules: { devices: [{ allowed_accounts: ['_'] }] },
    account: AUTH, allowed: false, failedStep: 'arguments',
  },
  {
    name: 'allowed_accounts that is not a list matches no account (fails closed)',
    rules: { devices: [{ allowed_accounts: '_' as never, rules: { '#': ['_'] } }] },
    account: AUTH, allowed: false, failedStep: 'account',
  },
  {
    name: 'an empty allowed_accounts list matches no account',
    rules: { devices: [{ allowed_accounts: [], rules: { '#': ['_'] } }] },
    account: AUTH, allowed: false, failedStep: 'account',
  },
  {
    name: 'a verb value that is not a list allows nothing',
    rules: { devices: [{ rules: { '#': 'GET' as never } }] },
    account: AUTH, allowed: false, failedStep: 'verb',
  },
  {
    name: 'endpoint names in the rules match whatever their letter case',
    rules: { Devices: [{ rules: { '#': ['_'] } }] },
    account: AUTH, allowed: true, endpointKey: 'Devices',
  },
  {
    name: 'verbs are compared in upper case as given, a lower-case verb in the rules matches nothing',
    rules: { devices: [{ rules: { '#': ['get' as never] } }] },
    account: AUTH, allowed: false, failedStep: 'verb',
  },
  {
    name: 'an argument in capitals cannot slip past a key written in lower case',
    rules: { devices: [{ rules: { '*/sync': [], '#': ['_'] } }] },
    args: ['d1', 'SYNC'], account: AUTH, allowed: false, failedStep: 'verb', argKey: '*/sync',
  },
  {
    name: 'an exact verb is reported in preference to _',
    rules: { devices: [{ rules: { '#': ['_', 'GET'] } }] },
    account: AUTH, allowed: true, verbVia: 'GET',
  },
];

describe('deciding a request', () => {
  it.each(scenarios)('$name', (s) => {
    const req = { method: s.method ?? 'GET', endpoint: s.endpoint ?? 'devices', args: s.args ?? [], accountId: s.account };
    const d = decide(s.rules, req, subject);
    expect(d.allowed).toBe(s.allowed);
    expect(d.failedStep).toBe(s.failedStep);
    if (s.endpointKey !== undefined) expect(d.endpoint.key).toBe(s.endpointKey);
    if (s.index !== undefined) expect(d.account?.index).toBe(s.index);
    if (s.via !== undefined) expect(d.account?.via).toBe(s.via);
    if (s.argKey !== undefined) expect(d.arguments?.key).toBe(s.argKey);
    if (s.verbVia !== undefined) expect(d.verb?.via).toBe(s.verbVia);
    // The compiled form decides the same way.
    expect(decide(compileRules(s.rules), req, subject)).toEqual(d);
  });
});

describe('what a decision records', () => {
  it('lists the endpoint names it looked up and the keys it walked', () => {
    const d = decide({ _: [{ rules: { '/': ['GET'], '*': ['GET'] } }] }, { method: 'GET', endpoint: 'devices', args: ['a', 'b'], accountId: AUTH }, subject);
    expect(d.endpoint.tried).toEqual(['devices', '_']);
    expect(d.arguments?.keys).toEqual(['/', '*']);
    expect(d.request.accountRelation).toBe('own');
    const exact: EndpointRules = { devices: [{ rules: { '/': ['GET'] } }], _: [{ rules: { '/': ['GET'] } }] };
    expect(decide(exact, { method: 'GET', endpoint: 'devices', args: [], accountId: AUTH }, subject).endpoint.tried).toEqual(['devices']);
    expect(decide({}, { method: 'GET', endpoint: '_', args: [], accountId: AUTH }, subject).endpoint.tried).toEqual(['_']);
  });

  it('asks about the account tree only when a rule needs it, and then once', () => {
    const isDescendant = vi.fn((id: string) => id === CHILD);
    const rules: EndpointRules = {
      devices: [{ allowed_accounts: [STRANGER], rules: { '#': ['_'] } }, { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: {} }, { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: { '#': ['_'] } }],
    };
    const d = decide(rules, { method: 'GET', endpoint: 'devices', args: [], accountId: CHILD }, { accountId: AUTH, isDescendant });
    expect(isDescendant).toHaveBeenCalledTimes(1);
    expect(d.request.accountRelation).toBe('descendant');
    expect(d.account?.index).toBe(1);
    expect(d.failedStep).toBe('arguments');

    isDescendant.mockClear();
    decide({ devices: [{ rules: { '#': ['_'] } }] }, { method: 'GET', endpoint: 'devices', args: [], accountId: CHILD }, { accountId: AUTH, isDescendant });
    expect(isDescendant).not.toHaveBeenCalled();

    // two rule objects that ask, for an account outside the tree: asked once still
    const twoAsk: EndpointRules = { devices: [{ allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: {} }, { allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: {} }] };
    isDescendant.mockClear();
    expect(decide(twoAsk, { method: 'GET', endpoint: 'devices', args: [], accountId: STRANGER }, { accountId: AUTH, isDescendant }).failedStep).toBe('account');
    expect(isDescendant).toHaveBeenCalledTimes(1);
    // a request naming no account: nothing to ask about
    isDescendant.mockClear();
    expect(decide(twoAsk, { method: 'GET', endpoint: 'devices', args: [], accountId: undefined }, { accountId: AUTH, isDescendant }).failedStep).toBe('account');
    expect(isDescendant).not.toHaveBeenCalled();
  });

  it('reports an account outside the tree as other once asked', () => {
    const d = decide({ devices: [{ allowed_accounts: ['{DESCENDANT_ACCOUNT_ID}'], rules: {} }] }, { method: 'GET', endpoint: 'devices', args: [], accountId: STRANGER }, subject);
    expect(d.request.accountRelation).toBe('other');
    expect(d.failedStep).toBe('account');
  });
});

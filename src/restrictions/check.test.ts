import { describe, expect, it } from 'vitest';
import { checkRequest, isRestricted } from './check.js';
import type { EndpointRules, RestrictionRequest } from './types.js';
import type { TokenRestrictions } from './check.js';

const ACC = '0123456789abcdef0123456789abcdef';
const subject = { accountId: ACC, isDescendant: () => false };
const req = (method: string, endpoint: string, segments: string[]): RestrictionRequest => ({ method, endpoint, args: [], accountId: ACC, segments });
const devices = req('GET', 'devices', ['accounts', ACC, 'devices']);
const users = req('GET', 'users', ['accounts', ACC, 'users']);
const rules: EndpointRules = { devices: [{ rules: { '/': ['GET'] } }] };

describe('a token checked against both forms of restrictions', () => {
  it('a token is restricted when it carries rules, login restrictions or both', () => {
    expect([isRestricted({}), isRestricted({ rules }), isRestricted({ login: {} }), isRestricted({ rules, login: { get: ['#'] } })]).toEqual([false, true, true, true]);
  });

  it.each([
    ['nothing to enforce', {}, devices, { allowed: true }],
    ['rules that allow', { rules }, devices, { allowed: true }],
    ['rules that deny, at their step', { rules }, users, { allowed: false, failedStep: 'endpoint' }],
    ['login restrictions that deny', { login: { get: ['token_auth'] } }, devices, { allowed: false, failedStep: 'login' }],
    ['rules that allow, login restrictions that deny', { rules, login: { get: ['token_auth'] } }, devices, { allowed: false, failedStep: 'login' }],
    ['both deny: the rules\' step is named', { rules, login: { get: ['token_auth'] } }, users, { allowed: false, failedStep: 'endpoint' }],
    ['rules that deny, login restrictions that allow', { rules, login: { get: ['#'] } }, users, { allowed: false, failedStep: 'endpoint' }],
  ] as const)('%s', (_name, token, request, verdict) => {
    const c = checkRequest(token as TokenRestrictions, request, subject);
    expect({ allowed: c.allowed, failedStep: c.failedStep }).toEqual({ failedStep: undefined, ...verdict });
    expect(c.template === undefined).toBe(!('rules' in token));
    expect(c.login === undefined).toBe(!('login' in token));
  });
});

import { describe, expect, it } from 'vitest';
import { compileRules } from './compile.js';
import { decide } from './decide.js';
import type { EndpointRules } from './types.js';

const AUTH = '0123456789abcdef0123456789abcdef';
const subject = { accountId: AUTH, isDescendant: () => false };
const get = (endpoint: string, args: string[] = []) => ({ method: 'GET', endpoint, args, accountId: AUTH });
const verdict = (rules: unknown, endpoint = 'devices', args: string[] = []) => {
  const d = decide(rules as EndpointRules, get(endpoint, args), subject);
  return d.allowed ? 'allowed' : d.failedStep;
};

describe('rules a template could not hold (stored before validation, or hand-made) fail closed', () => {
  it.each([
    ['an endpoint whose entry is null', { devices: null }, 'endpoint'],
    ['an endpoint whose entry is a string', { devices: 'all' }, 'endpoint'],
    ['a rule object whose rules are null', { devices: [{ rules: null }] }, 'arguments'],
    ['a rule object whose rules are a list', { devices: [{ rules: ['/'] }] }, 'arguments'],
    ['a verb list that is a string', { devices: [{ rules: { '/': 'GET' } }] }, 'verb'],
    ['a verb list with other things than strings', { devices: [{ rules: { '/': [1, 'GET'] } }] }, 'allowed'],
    ['allowed_accounts with other things than strings', { devices: [{ allowed_accounts: [1, '{AUTH_ACCOUNT_ID}'], rules: { '/': ['GET'] } }] }, 'allowed'],
    ['allowed_accounts that is a string', { devices: [{ allowed_accounts: '_', rules: { '/': ['GET'] } }] }, 'account'],
    ['allowed_accounts holding the id in a list, or null', { devices: [{ allowed_accounts: [[AUTH], null], rules: { '/': ['GET'] } }] }, 'account'],
  ] as const)('%s: %s', (_name, rules, expected) => {
    expect(verdict(rules)).toBe(expected);
  });

  it('rules that are not an object compile to no endpoint', () => {
    expect(compileRules(null as never).endpoints.size).toBe(0);
    expect(compileRules(undefined as never).endpoints.size).toBe(0);
    expect(compileRules('devices' as never).endpoints.size).toBe(0);
    expect(compileRules({ devices: [{}] }).endpoints.size).toBe(1);
  });

  it('of two spellings of an endpoint, the first given counts', () => {
    const rules = { Devices: [{ rules: { '/': ['PUT'] } }], devices: [{ rules: { '/': ['GET'] } }] };
    expect(verdict(rules)).toBe('verb');
    expect(compileRules(rules as EndpointRules).endpoints.get('devices')?.key).toBe('Devices');
  });
});

import { describe, expect, it } from 'vitest';
import { compileLogin, decideLogin } from './login.js';
import type { LoginRestrictions } from './types.js';

const ACC = '0123456789abcdef0123456789abcdef';
const seg = (path: string) => path.split('/').filter(Boolean);

const table: { name: string; login: LoginRestrictions; method: string; path: string; allowed: boolean; key?: string }[] = [
  { name: 'a read-only token may GET anything', login: { get: ['#'] }, method: 'GET', path: `accounts/${ACC}/devices`, allowed: true, key: 'get' },
  { name: 'a read-only token may not POST', login: { get: ['#'] }, method: 'POST', path: `accounts/${ACC}/devices`, allowed: false },
  { name: '* covers every method', login: { '*': [`accounts/${ACC}/users/#`] }, method: 'DELETE', path: `accounts/${ACC}/users/u1`, allowed: true, key: '*' },
  { name: '# covers the resource itself', login: { '*': [`accounts/${ACC}/users/#`] }, method: 'GET', path: `accounts/${ACC}/users`, allowed: true },
  { name: 'a pattern for one account does not cover another resource', login: { '*': [`accounts/${ACC}/users/#`] }, method: 'GET', path: `accounts/${ACC}/devices`, allowed: false },
  { name: '* in a pattern is exactly one segment', login: { get: [`accounts/${ACC}/users/*`] }, method: 'GET', path: `accounts/${ACC}/users/u1/channels`, allowed: false },
  { name: '* in a pattern matches one segment', login: { get: [`accounts/${ACC}/users/*`] }, method: 'GET', path: `accounts/${ACC}/users/u1`, allowed: true },
  { name: "patterns of another verb don't apply", login: { put: ['#'] }, method: 'GET', path: 'token_auth', allowed: false },
  { name: 'the verb patterns are tried before *', login: { get: ['token_auth'], '*': ['#'] }, method: 'GET', path: 'token_auth', allowed: true, key: 'get' },
  { name: '* is tried when the verb patterns miss', login: { get: ['token_auth'], '*': ['#'] }, method: 'GET', path: 'accounts', allowed: true, key: '*' },
  { name: 'an empty object allows nothing', login: {}, method: 'GET', path: 'token_auth', allowed: false },
  { name: 'a leading version in a pattern is ignored', login: { get: ['/v2/token_auth'] }, method: 'GET', path: 'token_auth', allowed: true },
  { name: 'an account id written in capitals matches', login: { get: [`accounts/${ACC.toUpperCase()}`] }, method: 'GET', path: `accounts/${ACC}`, allowed: true },
  { name: 'non-string patterns are ignored', login: { get: [5 as never, 'token_auth'] }, method: 'GET', path: 'token_auth', allowed: true },
  { name: 'only a whole version segment is dropped, not one ending in v2', login: { get: ['xv2/token_auth'] }, method: 'GET', path: 'token_auth', allowed: false },
  { name: 'only a whole version segment is dropped, not one starting with v1', login: { get: ['v1x/token_auth'] }, method: 'GET', path: 'token_auth', allowed: false },
  { name: 'a method key in capitals reads as lower case', login: { GET: ['token_auth'] }, method: 'GET', path: 'token_auth', allowed: true, key: 'get' },
  { name: 'of two spellings of a method, the first given counts', login: { get: ['accounts'], GET: ['token_auth'] }, method: 'GET', path: 'token_auth', allowed: false },
  { name: 'a method whose value is not a list is skipped, and another spelling of it counts', login: { get: 'token_auth' as never, GET: ['token_auth'] }, method: 'GET', path: 'token_auth', allowed: true },
  { name: 'a method whose value is not a list allows nothing', login: { get: 'token_auth' as never }, method: 'GET', path: 'token_auth', allowed: false },
  { name: 'the any-method key answers a request whose method is *', login: { '*': ['#'] }, method: '*', path: 'token_auth', allowed: true, key: '*' },
];

describe('restrictions given at login', () => {
  it.each(table)('$name', ({ login, method, path, allowed, key }) => {
    const d = decideLogin(login, method, seg(path));
    expect(d.allowed).toBe(allowed);
    if (key) expect(d.matched?.key).toBe(key);
  });

  it('records the keys it consulted and the pattern that matched', () => {
    const d = decideLogin({ get: ['accounts'], '*': ['token_auth'] }, 'GET', ['token_auth']);
    expect(d.keys).toEqual(['get', '*']);
    expect(d.matched).toEqual({ key: '*', pattern: 'token_auth' });
    expect(decideLogin({ put: ['#'] }, 'GET', ['token_auth'])).toEqual({ allowed: false, method: 'GET', segments: ['token_auth'], keys: [] });
  });

  it('restrictions that are not an object compile to nothing', () => {
    expect(compileLogin(null as never).size).toBe(0);
    expect(compileLogin({ get: ['#'] }).size).toBe(1);
  });
});

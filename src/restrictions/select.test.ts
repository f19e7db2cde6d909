import { describe, expect, it } from 'vitest';
import { chooseRules, selectRules } from './select.js';
import type { EndpointRules, RestrictionTemplate } from './types.js';

const r = (name: string): EndpointRules => ({ [name]: [{ rules: { '#': ['_'] } }] });

const template: RestrictionTemplate = {
  cb_user_auth: { admin: r('user-admin'), _: r('user-any') },
  cb_api_auth: { user: r('api-user') },
  _: { admin: r('any-admin'), _: r('any-any') },
};

const table: { name: string; method: string; priv: string; methodKey?: string; privKey?: string; endpoint?: string }[] = [
  { name: 'the exact method and the exact level are used first', method: 'cb_user_auth', priv: 'admin', methodKey: 'cb_user_auth', privKey: 'admin', endpoint: 'user-admin' },
  { name: 'an unknown level falls back to _ under the exact method', method: 'cb_user_auth', priv: 'operator', methodKey: 'cb_user_auth', privKey: '_', endpoint: 'user-any' },
  { name: 'an unknown method falls back to _', method: 'cb_ip_auth', priv: 'admin', methodKey: '_', privKey: 'admin', endpoint: 'any-admin' },
  { name: 'an unknown method and level fall back to _ and _', method: 'cb_ip_auth', priv: 'user', methodKey: '_', privKey: '_', endpoint: 'any-any' },
  { name: 'an exact method without the level or _ selects nothing, it does not try the _ method', method: 'cb_api_auth', priv: 'admin', methodKey: 'cb_api_auth' },
];

describe('selecting rules from a template', () => {
  it.each(table)('$name', ({ method, priv, methodKey, privKey, endpoint }) => {
    const sel = selectRules(template, method, priv);
    expect(sel.methodKey).toBe(methodKey);
    expect(sel.privKey).toBe(privKey);
    expect(sel.rules ? Object.keys(sel.rules)[0] : undefined).toBe(endpoint);
  });

  it('selects nothing from a missing template', () => {
    expect(selectRules(undefined, 'cb_user_auth', 'admin')).toEqual({});
  });

  it('selects nothing when neither the method nor _ is present', () => {
    expect(selectRules({ cb_user_auth: { _: r('x') } }, 'cb_api_auth', 'admin')).toEqual({});
  });

  it('selects an empty object as rules (which then deny every request)', () => {
    expect(selectRules({ _: { _: {} } }, 'cb_api_auth', 'admin')).toEqual({ rules: {}, methodKey: '_', privKey: '_' });
  });

  it('ignores a level whose value is not an object', () => {
    expect(selectRules({ _: { admin: [] as never, _: r('fallback') } }, 'cb_api_auth', 'admin').privKey).toBe('_');
  });
});

describe('choosing between the account and the system template', () => {
  const system: RestrictionTemplate = { _: { _: r('system') } };

  it('uses the account template when it has the method', () => {
    const c = chooseRules({ account: { cb_api_auth: { admin: r('account') } }, system }, 'cb_api_auth', 'admin');
    expect(c.source).toBe('account');
    expect(Object.keys(c.rules!)).toEqual(['account']);
  });

  it('uses the system template when the account template lacks the method', () => {
    const c = chooseRules({ account: { cb_user_auth: { _: r('account') } }, system }, 'cb_api_auth', 'admin');
    expect(c.source).toBe('system');
    expect(Object.keys(c.rules!)).toEqual(['system']);
  });

  it('keeps the account template (no rules) when it has the method but not the level', () => {
    const c = chooseRules({ account: { cb_api_auth: { user: r('account') } }, system }, 'cb_api_auth', 'admin');
    expect(c).toEqual({ source: 'account', methodKey: 'cb_api_auth' });
  });

  it('gives no rules when there are no templates', () => {
    expect(chooseRules({}, 'cb_user_auth', 'user')).toEqual({});
  });
});

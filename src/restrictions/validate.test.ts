import { describe, expect, it } from 'vitest';
import { validateEndpointRules, validateLoginRestrictions, validateRestrictionsDocument, validateTemplate } from './validate.js';

const ok = { rules: { '#': ['_'] } };
const wrap = (endpointValue: unknown) => ({ cb_user_auth: { user: { devices: endpointValue } } });
const at = 'restrictions.cb_user_auth.user.devices';

const table: { name: string; template: unknown; field: string; rule: string; message: string; value?: unknown }[] = [
  { name: 'a method key with a dash fails the name pattern', template: { 'cb-user': { _: {} } }, field: 'restrictions.cb-user', rule: 'pattern', message: "Failed to match pattern '^\\w+$'", value: 'cb-user' },
  { name: 'a privilege key with a space fails the name pattern', template: { _: { 'power user': {} } }, field: 'restrictions._.power user', rule: 'pattern', message: "Failed to match pattern '^\\w+$'" },
  { name: 'an endpoint key with a slash fails the name pattern', template: { _: { _: { 'devices/x': [ok] } } }, field: 'restrictions._._.devices/x', rule: 'pattern', message: "Failed to match pattern '^\\w+$'" },
  { name: 'an argument key with a dash fails the argument pattern', template: wrap([{ rules: { 'quick-call': ['GET'] } }]), field: `${at}.0.rules.quick-call`, rule: 'pattern', message: "Failed to match pattern '^[\\w/#*]+$'" },
  { name: 'an unknown verb is not in the enumerated list', template: wrap([{ rules: { '#': ['FETCH'] } }]), field: `${at}.0.rules.#.0`, rule: 'enum', message: 'Value not found in enumerated list of values', value: 'FETCH' },
  { name: 'a lower-case verb is not in the enumerated list', template: wrap([{ rules: { '#': ['get'] } }]), field: `${at}.0.rules.#.0`, rule: 'enum', message: 'Value not found in enumerated list of values' },
  { name: 'a repeated verb is not unique', template: wrap([{ rules: { '#': ['GET', 'GET'] } }]), field: `${at}.0.rules.#`, rule: 'uniqueItems', message: 'List of items is not unique' },
  { name: 'a verb string instead of a list is the wrong type', template: wrap([{ rules: { '#': 'GET' } }]), field: `${at}.0.rules.#`, rule: 'type', message: 'Value did not match type(s): array', value: 'GET' },
  { name: 'allowed_accounts as a string is the wrong type', template: wrap([{ allowed_accounts: '_', rules: {} }]), field: `${at}.0.allowed_accounts`, rule: 'type', message: 'Value did not match type(s): array' },
  { name: 'a repeated account is not unique', template: wrap([{ allowed_accounts: ['_', '_'] }]), field: `${at}.0.allowed_accounts`, rule: 'uniqueItems', message: 'List of items is not unique' },
  { name: 'a number in allowed_accounts is the wrong type', template: wrap([{ allowed_accounts: [5] }]), field: `${at}.0.allowed_accounts.0`, rule: 'type', message: 'Value did not match type(s): string' },
  { name: 'an endpoint entry that is a string is the wrong type', template: wrap('all'), field: at, rule: 'type', message: 'Value did not match type(s): array, object' },
  { name: 'rules as a list is the wrong type', template: wrap([{ rules: [] }]), field: `${at}.0.rules`, rule: 'type', message: 'Value did not match type(s): object' },
  { name: 'a misspelt field in a rule object is refused', template: wrap([{ allowed_account: ['_'], rules: {} }]), field: `${at}.0.allowed_account`, rule: 'additionalProperties', message: 'Field is not allowed in a rule object (allowed: allowed_accounts, rules)' },
  { name: 'a misspelt field in a single rule object is refused', template: wrap({ rule: {} }), field: `${at}.rule`, rule: 'additionalProperties', message: 'Field is not allowed in a rule object (allowed: allowed_accounts, rules)' },
  { name: 'a bad verb in a single rule object is reported without an index', template: wrap({ rules: { '*': ['GOT'] } }), field: `${at}.rules.*.0`, rule: 'enum', message: 'Value not found in enumerated list of values' },
  { name: 'a privilege level that is not an object is the wrong type', template: { _: { admin: [] } }, field: 'restrictions._.admin', rule: 'type', message: 'Value did not match type(s): object' },
];

describe('validating a template on write', () => {
  it.each(table)('$name', ({ template, field, rule, message, value }) => {
    const errs = validateTemplate(template);
    expect(errs?.[field]?.[rule]?.message).toBe(message);
    if (value !== undefined) expect(errs?.[field]?.[rule]?.value).toEqual(value);
  });

  it.each([
    ['arrays of rule objects', wrap([{ allowed_accounts: ['{AUTH_ACCOUNT_ID}'], rules: { '/': ['GET'], '*/quickcall/#': ['GET', 'PUT'] } }])],
    ['a single rule object', wrap({ rules: { '#': ['_'] } })],
    ['an empty verb list', wrap([{ rules: { '#': [] } }])],
    ['catch-all keys at every level', { _: { _: { _: [ok] } } }],
    ['an empty template', {}],
  ])('accepts %s', (_label, template) => {
    expect(validateTemplate(template)).toBeUndefined();
  });

  it('reports several failures at once, merged per field', () => {
    const errs = validateTemplate(wrap([{ allowed_accounts: ['a', 'a'], rules: { '#': ['GET', 'GET', 'NOPE'] } }]))!;
    expect(Object.keys(errs).sort()).toEqual([`${at}.0.allowed_accounts`, `${at}.0.rules.#`, `${at}.0.rules.#.2`]);
  });

  it('two failures of one field are both kept under it', () => {
    const errs = validateTemplate({ 'cb-user': [] })!;
    expect(Object.keys(errs['restrictions.cb-user']).sort()).toEqual(['pattern', 'type']);
  });

  it('names a key holding / or ~ as written in the path of an error below it', () => {
    expect(validateTemplate(wrap([{ rules: { '{id}/sync': 'GET' } }]))?.[`${at}.0.rules.{id}/sync`]?.type).toBeDefined();
    expect(validateTemplate({ _: { _: { 'x~y': 'all' } } })?.['restrictions._._.x~y']?.type).toBeDefined();
  });

  it('escapes a dot inside a key as %2E', () => {
    const errs = validateTemplate({ 'a.b': {} })!;
    expect(errs['restrictions.a%2Eb'].pattern).toBeDefined();
  });
});

describe('validating the token_restrictions document', () => {
  it('requires restrictions', () => {
    expect(validateRestrictionsDocument({})).toEqual({ restrictions: { required: { message: 'Field is required but missing' } } });
  });

  it('requires restrictions to be an object', () => {
    expect(validateRestrictionsDocument({ restrictions: [] })?.restrictions?.type?.message).toBe('Value did not match type(s): object');
  });

  it('accepts a valid document', () => {
    expect(validateRestrictionsDocument({ restrictions: { _: { _: { _: [ok] } } } })).toBeUndefined();
  });
});

describe('validating restrictions given at login', () => {
  it('accepts lower-case verbs and *', () => {
    expect(validateLoginRestrictions({ get: ['#'], '*': ['accounts/x/users/#'], delete: [] })).toBeUndefined();
  });

  it('refuses an upper-case verb key', () => {
    const errs = validateLoginRestrictions({ GET: ['#'] });
    expect(errs?.['restrictions.GET']?.enum?.value).toBe('GET');
    // the name's own error only, not a second one for the object holding it
    expect(Object.keys(errs!)).toEqual(['restrictions.GET']);
  });

  it('refuses a pattern that is not a list', () => {
    expect(validateLoginRestrictions({ get: '#' })?.['restrictions.get']?.type).toBeDefined();
  });

  it('refuses an empty pattern', () => {
    expect(validateLoginRestrictions({ get: [''] })?.['restrictions.get.0']?.minLength).toEqual({ message: 'String must be at least 1 characters', target: 1, value: '' });
  });

  it('keys errors under the given base', () => {
    expect(Object.keys(validateLoginRestrictions('x', 'data.restrictions')!)).toEqual(['data.restrictions']);
  });
});

describe('validating the endpoint rules of one token', () => {
  it('accepts arrays and single objects', () => {
    expect(validateEndpointRules({ devices: [{ rules: { '#': ['GET'] } }], _: { rules: { '/': [] } } })).toBeUndefined();
  });

  it('reports paths from the endpoint down', () => {
    expect(validateEndpointRules({ devices: [{ rules: { '#': ['get'] } }] })?.['restrictions.devices.0.rules.#.0']?.enum).toBeDefined();
  });

  it('refuses a template given where endpoint rules are expected', () => {
    const errs = validateEndpointRules({ cb_api_auth: { admin: { devices: [] } } })!;
    expect(errs['restrictions.cb_api_auth.admin']?.additionalProperties).toBeDefined();
  });
});

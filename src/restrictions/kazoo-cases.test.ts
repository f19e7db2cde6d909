import { describe, expect, it } from 'vitest';
import { decide } from './decide.js';
import type { EndpointRules, RuleObject, RuleVerb } from './types.js';

// The scenarios of Kazoo's own restriction tests: a token of account AUTH acts on account ACC,
// a descendant of AUTH, with GET on `devices` and four argument lists.
const AUTH = '6eb37425cd30bf7e5b1785abdcbc2c1d';
const ACC = 'c959c8f96db9891f99e6f655d1aeb503';
const DEV = 'd60fb8c1f0930f2d0d9c9f878f271432';

const ARGUMENT_LISTS: string[][] = [[], [DEV], [DEV, 'sync'], [DEV, 'quick_call', '+14158867900']];

const subject = { accountId: AUTH, isDescendant: (id: string) => id === ACC };

const object = (allowed: string[] | undefined, rules: Record<string, RuleVerb[]>): RuleObject =>
  allowed === undefined ? { rules } : { allowed_accounts: allowed, rules };
const onDevices = (o: RuleObject): EndpointRules => ({ devices: [o] });

type Outcome = 'allowed' | 'denied';
const A: Outcome = 'allowed';
const D: Outcome = 'denied';

const scenarios: { name: string; rules: EndpointRules; expected: [Outcome, Outcome, Outcome, Outcome] }[] = [
  { name: 'a catch-all endpoint entry allows every request', rules: { _: [object(['_'], { '#': ['_'] })] }, expected: [A, A, A, A] },
  { name: 'rules for another endpoint only deny devices', rules: { accounts: [object(['_'], { '#': ['_'] })] }, expected: [D, D, D, D] },
  { name: 'an entry for devices allows devices', rules: onDevices(object(['_'], { '#': ['_'] })), expected: [A, A, A, A] },
  { name: 'the token-account macro does not cover a descendant', rules: onDevices(object(['{AUTH_ACCOUNT_ID}'], { '#': ['_'] })), expected: [D, D, D, D] },
  { name: 'the descendant macro covers a descendant', rules: onDevices(object(['{DESCENDANT_ACCOUNT_ID}'], { '#': ['_'] })), expected: [A, A, A, A] },
  { name: 'the requested account listed by id is allowed', rules: onDevices(object([ACC], { '#': ['_'] })), expected: [A, A, A, A] },
  { name: "the token's account listed by id does not cover another account", rules: onDevices(object([AUTH], { '#': ['_'] })), expected: [D, D, D, D] },
  { name: 'missing allowed_accounts means any account', rules: onDevices(object(undefined, { '#': ['_'] })), expected: [A, A, A, A] },
  { name: 'the key / matches only an empty argument list', rules: onDevices(object([ACC], { '/': ['_'] })), expected: [A, D, D, D] },
  { name: 'the key * matches exactly one argument', rules: onDevices(object([ACC], { '*': ['_'] })), expected: [D, A, D, D] },
  { name: 'the key # matches any argument list', rules: onDevices(object([ACC], { '#': ['_'] })), expected: [A, A, A, A] },
  { name: 'a literal key matches only that one argument', rules: onDevices(object([ACC], { [DEV]: ['_'] })), expected: [D, A, D, D] },
  { name: 'the key */* matches exactly two arguments', rules: onDevices(object([ACC], { '*/*': ['_'] })), expected: [D, D, A, D] },
  { name: 'the key */*/* matches exactly three arguments', rules: onDevices(object([ACC], { '*/*/*': ['_'] })), expected: [D, D, D, A] },
  { name: 'a literal followed by # matches that id and anything after it', rules: onDevices(object([ACC], { [`${DEV}/#`]: ['_'] })), expected: [D, A, A, A] },
  { name: 'the verb _ allows GET', rules: onDevices(object([ACC], { '#': ['_'] })), expected: [A, A, A, A] },
  { name: 'the verb list [GET] allows GET', rules: onDevices(object([ACC], { '#': ['GET'] })), expected: [A, A, A, A] },
  { name: 'the verb list [GET, POST] allows GET', rules: onDevices(object([ACC], { '#': ['GET', 'POST'] })), expected: [A, A, A, A] },
  { name: 'the verb list [POST] denies GET', rules: onDevices(object([ACC], { '#': ['POST'] })), expected: [D, D, D, D] },
];

describe("Kazoo's restriction scenarios (GET devices on a descendant account)", () => {
  const cases = scenarios.flatMap((s) =>
    ARGUMENT_LISTS.map((args, i) => ({ ...s, args, outcome: s.expected[i], label: args.length ? args.join('/') : '(none)' })),
  );
  it.each(cases)('$name — arguments $label → $outcome', ({ rules, args, outcome }) => {
    const d = decide(rules, { method: 'GET', endpoint: 'devices', args, accountId: ACC }, subject);
    expect(d.allowed ? 'allowed' : 'denied').toBe(outcome);
  });

  it('covers all 76 assertions of the original table', () => {
    expect(cases).toHaveLength(76);
  });
});

import { compileArgKey, type SegmentMatcher } from './args.js';
import type { EndpointRules, RuleObject } from './types.js';

const HEX_ID = /^[0-9a-fA-F]{32}$/;

/** One rule object, ready to decide with. */
export interface CompiledRuleObject {
  /** matches any account: `allowed_accounts` missing or holding `_` */
  anyAccount: boolean;
  /** what made it match any account: `(missing)` or `_` */
  anyVia: string;
  accountIds: ReadonlySet<string>;
  authAccount: boolean;
  descendantAccount: boolean;
  keys: readonly string[];
  matchers: readonly SegmentMatcher[];
  verbs: readonly (readonly string[])[];
}

/** One endpoint entry (an array of rule objects, or a single object taken as one). */
export interface CompiledEndpoint {
  key: string;
  single: boolean;
  objects: readonly CompiledRuleObject[];
}

/** Endpoint rules compiled once; `decide` takes these or the plain document. */
export class CompiledRules {
  constructor(
    readonly source: EndpointRules,
    readonly endpoints: ReadonlyMap<string, CompiledEndpoint>,
  ) {}
}

const EMPTY: readonly string[] = Object.freeze([]);

function compileRuleObject(raw: unknown): CompiledRuleObject {
  const obj = (raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as RuleObject;
  const allowed = obj.allowed_accounts as unknown;
  const accountIds = new Set<string>();
  let anyAccount = false;
  let anyVia = '_';
  let authAccount = false;
  let descendantAccount = false;
  if (allowed === undefined) {
    anyAccount = true;
    anyVia = '(missing)';
  } else if (Array.isArray(allowed)) {
    for (const entry of allowed) {
      if (typeof entry !== 'string') continue;
      if (entry === '_') anyAccount = true;
      else if (entry === '{AUTH_ACCOUNT_ID}') authAccount = true;
      else if (entry === '{DESCENDANT_ACCOUNT_ID}') descendantAccount = true;
      else accountIds.add(HEX_ID.test(entry) ? entry.toLowerCase() : entry);
    }
  }
  // Anything else (a string, an object) matches no account: a malformed rule fails closed.
  const rules = obj.rules as unknown;
  const keys: string[] = [];
  const matchers: SegmentMatcher[] = [];
  const verbs: (readonly string[])[] = [];
  if (rules !== null && typeof rules === 'object' && !Array.isArray(rules)) {
    for (const [key, list] of Object.entries(rules as Record<string, unknown>)) {
      keys.push(key);
      matchers.push(compileArgKey(key));
      verbs.push(Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : EMPTY);
    }
  }
  return { anyAccount, anyVia, accountIds, authAccount, descendantAccount, keys, matchers, verbs };
}

/** Compiles endpoint rules (endpoint names are matched case-insensitively, as paths are). */
export function compileRules(rules: EndpointRules): CompiledRules {
  const endpoints = new Map<string, CompiledEndpoint>();
  if (rules !== null && typeof rules === 'object') {
    for (const [name, entry] of Object.entries(rules as Record<string, unknown>)) {
      const key = name.toLowerCase();
      if (endpoints.has(key) || entry === null || typeof entry !== 'object') continue;
      const single = !Array.isArray(entry);
      const list = single ? [entry] : (entry as unknown[]);
      endpoints.set(key, { key: name, single, objects: list.map(compileRuleObject) });
    }
  }
  return new CompiledRules(rules, endpoints);
}

const cache = new WeakMap<object, CompiledRules>();

/** The compiled form of `rules`, compiled on first use and kept while the object lives. */
export function compiled(rules: EndpointRules | CompiledRules): CompiledRules {
  if (rules instanceof CompiledRules) return rules;
  let c = cache.get(rules);
  // Stryker disable next-line ConditionalExpression: a cache: compiling again gives the same rules
  if (!c) {
    c = compileRules(rules);
    // Stryker disable next-line CallExpression: a cache, as above
    cache.set(rules, c);
  }
  return c;
}

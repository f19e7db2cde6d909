/** HTTP verbs a rule may list; `_` stands for any verb. */
export type RuleVerb = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE' | '_';

/** One rule object of an endpoint entry (spec: Token restrictions, rule object). */
export interface RuleObject {
  allowed_accounts?: string[];
  rules?: Record<string, RuleVerb[]>;
}

/** endpoint name (or `_`) → rule objects; a single object is accepted as a one-element array. */
export type EndpointRules = Record<string, RuleObject[] | RuleObject>;

/** A template: auth method (or `_`) → privilege level (or `_`) → endpoint rules. */
export type RestrictionTemplate = Record<string, Record<string, EndpointRules>>;

/** Second form, given at login: lower-case verb or `*` → URI patterns without the version prefix. */
export type LoginRestrictions = Record<string, string[]>;

/** What a request asks for, as the parsed path says it (see src/http/context.ts). */
export interface RestrictionRequest {
  /** upper-case HTTP method */
  method: string;
  /** the last resource name of the path */
  endpoint: string;
  /** the arguments after the last resource name */
  args: string[];
  /** the account named in the path (`/accounts/{id}/…`), if any */
  accountId?: string;
  /** all normalised path segments after the version prefix, for the second form */
  segments: string[];
}

/** The four steps of the template check, in the order they run. */
export type RestrictionStep = 'endpoint' | 'account' | 'arguments' | 'verb';

/** How the account named in the path relates to the token's account. */
export type AccountRelation = 'none' | 'own' | 'descendant' | 'other';

/** Who holds the token: its account, and a way to ask about the account tree. */
export interface RestrictionSubject {
  accountId: string;
  /** true when `accountId` (the argument) is a strict descendant of the token's account */
  isDescendant(accountId: string): boolean;
}

/** The outcome of the template check, with what matched at each step (for explanations). */
export interface Decision {
  allowed: boolean;
  /** the step that found no match; absent when allowed */
  failedStep?: RestrictionStep;
  request: {
    method: string;
    endpoint: string;
    args: readonly string[];
    accountId?: string;
    /** `other` means not the token's own account and, if it was asked, not a descendant */
    accountRelation: AccountRelation;
  };
  endpoint: {
    /** the names looked up, in order (the request's endpoint, then `_`) */
    tried: readonly string[];
    /** the entry used: the endpoint name or `_` */
    key?: string;
    /** how many rule objects that entry holds */
    ruleObjects?: number;
    /** the entry was a single rule object rather than an array */
    singleObject?: boolean;
  };
  account?: {
    /** index of the chosen rule object in the endpoint's entry */
    index: number;
    /** the `allowed_accounts` entry that matched: `_`, an id, a macro, or `(missing)` */
    via: string;
  };
  arguments?: {
    /** the argument keys of the chosen rule object, in document order */
    keys: readonly string[];
    /** the first key that matched */
    key?: string;
    /** that key's verbs */
    verbs?: readonly string[];
  };
  verb?: {
    /** what let the method through: the method itself or `_` */
    via: string;
  };
}

/** The outcome of the second-form (login payload) check. */
export interface LoginDecision {
  allowed: boolean;
  method: string;
  /** the path segments after the version prefix that were matched */
  segments: readonly string[];
  /** the payload keys consulted: the lower-case method and `*`, those present */
  keys: readonly string[];
  /** the key and pattern that allowed the request */
  matched?: { key: string; pattern: string };
}

/** Which template entries were selected for a token. */
export interface RuleSelection {
  rules?: EndpointRules;
  /** the authentication-method key used: the method name or `_` */
  methodKey?: string;
  /** the privilege-level key used: the level or `_` */
  privKey?: string;
}

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

import type { EndpointRules, RestrictionTemplate, RuleSelection } from './types.js';

const CATCH_ALL = '_';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function pick(level: Record<string, unknown>, name: string): string | undefined {
  if (Object.hasOwn(level, name) && isObject(level[name])) return name;
  if (Object.hasOwn(level, CATCH_ALL) && isObject(level[CATCH_ALL])) return CATCH_ALL;
  return undefined;
}

/**
 * Selects the endpoint rules of a template for a token: the authentication method's entry
 * (exact name, then `_`), then the privilege level's (exact, then `_`). Nothing selected means
 * no rules: the token is unrestricted. An empty object selected is not nothing: it denies all.
 */
export function selectRules(template: RestrictionTemplate | undefined, method: string, privLevel: string): RuleSelection {
  if (!isObject(template)) return {};
  const methodKey = pick(template, method);
  if (methodKey === undefined) return {};
  const byPriv = template[methodKey] as Record<string, unknown>;
  const privKey = pick(byPriv, privLevel);
  if (privKey === undefined) return { methodKey };
  return { rules: byPriv[privKey] as EndpointRules, methodKey, privKey };
}

/** Where the rules of a token came from. */
export type TemplateSource = 'account' | 'system';

/** A selection, with the template it was taken from. */
export interface TemplateChoice extends RuleSelection {
  source?: TemplateSource;
}

/**
 * Chooses between the account template and the system template: the account's is used when
 * it has an entry for the method (exact or `_`), even if no privilege level then matches;
 * otherwise the system's.
 */
export function chooseRules(
  templates: { account?: RestrictionTemplate; system?: RestrictionTemplate },
  method: string,
  privLevel: string,
): TemplateChoice {
  const fromAccount = selectRules(templates.account, method, privLevel);
  if (fromAccount.methodKey !== undefined) return { ...fromAccount, source: 'account' };
  const fromSystem = selectRules(templates.system, method, privLevel);
  if (fromSystem.methodKey !== undefined) return { ...fromSystem, source: 'system' };
  return {};
}

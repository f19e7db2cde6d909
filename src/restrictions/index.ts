export * from './types.js';
export { compileArgKey, compileSegments, lowerSegments, matchArgs, splitPattern, type SegmentMatcher } from './args.js';
export { CompiledRules, compileRules, compiled, type CompiledEndpoint, type CompiledRuleObject } from './compile.js';
export { decide } from './decide.js';
export { compileLogin, decideLogin } from './login.js';
export { chooseRules, selectRules, type TemplateChoice, type TemplateSource } from './select.js';
export { checkRequest, isRestricted, type RestrictionCheck, type TokenRestrictions } from './check.js';
export { explain, explainCheck, explainLogin } from './explain.js';
export {
  ARG_KEY_PATTERN,
  LOGIN_KEYS,
  NAME_KEY_PATTERN,
  RULE_VERBS,
  documentSchema,
  endpointRulesSchema,
  loginSchema,
  templateSchema,
  validateEndpointRules,
  validateLoginRestrictions,
  validateRestrictionsDocument,
  validateTemplate,
  type RestrictionErrors,
} from './validate.js';

import type { CompiledRules } from './compile.js';
import { decide } from './decide.js';
import { decideLogin } from './login.js';
import type {
  Decision,
  EndpointRules,
  LoginDecision,
  LoginRestrictions,
  RestrictionRequest,
  RestrictionStep,
  RestrictionSubject,
} from './types.js';

/** What a token carries: rules copied from a template, restrictions from its login payload. */
export interface TokenRestrictions {
  rules?: EndpointRules | CompiledRules;
  login?: LoginRestrictions;
}

/** The whole verdict on a request: each form that applies must allow it. */
export interface RestrictionCheck {
  allowed: boolean;
  /** the step that denied: a template step, or `login` for the second form */
  failedStep?: RestrictionStep | 'login';
  /** present when the token holds template rules */
  template?: Decision;
  /** present when the token holds second-form restrictions */
  login?: LoginDecision;
}

/** True when the token carries anything to enforce. */
export function isRestricted(token: TokenRestrictions): boolean {
  return token.rules != null || token.login != null;
}

/**
 * Checks a request against everything a token carries; the server and `tel restrictions test`
 * both call this. Both forms are evaluated (for the explanation) and both must pass.
 */
export function checkRequest(
  token: TokenRestrictions,
  req: RestrictionRequest,
  subject: RestrictionSubject,
): RestrictionCheck {
  const result: RestrictionCheck = { allowed: true };
  if (token.rules != null) {
    result.template = decide(token.rules, req, subject);
    if (!result.template.allowed) {
      result.allowed = false;
      result.failedStep = result.template.failedStep;
    }
  }
  if (token.login != null) {
    result.login = decideLogin(token.login, req.method, req.segments);
    if (!result.login.allowed && result.allowed) {
      result.allowed = false;
      result.failedStep = 'login';
    }
  }
  return result;
}

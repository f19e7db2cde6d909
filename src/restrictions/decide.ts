import { lowerSegments } from './args.js';
import { compiled, type CompiledEndpoint, type CompiledRuleObject, type CompiledRules } from './compile.js';
import type { AccountRelation, Decision, EndpointRules, RestrictionRequest, RestrictionSubject } from './types.js';

const CATCH_ALL = '_';

/**
 * Decides a request against a token's endpoint rules: endpoint (exact name, then `_`), the
 * first rule object whose `allowed_accounts` matches the path's account, the first argument
 * key (document order) matching the arguments (letter case ignored), then the verb. Says what
 * matched at each step.
 */
export function decide(
  rules: EndpointRules | CompiledRules,
  req: Pick<RestrictionRequest, 'method' | 'endpoint' | 'args' | 'accountId'>,
  subject: RestrictionSubject,
): Decision {
  const c = compiled(rules);
  const accountId = req.accountId;
  let relation: AccountRelation = accountId === undefined ? 'none' : accountId === subject.accountId ? 'own' : 'other';
  const decision: Decision = {
    allowed: false,
    request: { method: req.method, endpoint: req.endpoint, args: req.args, accountId, accountRelation: relation },
    endpoint: { tried: [req.endpoint] },
  };

  let entry: CompiledEndpoint | undefined = c.endpoints.get(req.endpoint.toLowerCase());
  if (!entry && req.endpoint !== CATCH_ALL) {
    decision.endpoint.tried = [req.endpoint, CATCH_ALL];
    entry = c.endpoints.get(CATCH_ALL);
  }
  if (!entry) {
    decision.failedStep = 'endpoint';
    return decision;
  }
  decision.endpoint.key = entry.key;
  decision.endpoint.ruleObjects = entry.objects.length;
  decision.endpoint.singleObject = entry.single;

  let descendantAsked = false;
  let chosen: CompiledRuleObject | undefined;
  const objects = entry.objects;
  for (let i = 0; i < objects.length; i++) {
    const o = objects[i];
    let via: string | undefined;
    if (o.anyAccount) via = o.anyVia;
    else if (accountId === undefined) via = undefined;
    else if (o.accountIds.has(accountId)) via = accountId;
    else if (relation === 'own') via = o.authAccount ? '{AUTH_ACCOUNT_ID}' : undefined;
    else if (o.descendantAccount) {
      // The tree lookup may cost a query: ask once, and only when a rule needs it.
      if (!descendantAsked) {
        descendantAsked = true;
        if (subject.isDescendant(accountId)) relation = 'descendant';
        decision.request.accountRelation = relation;
      }
      if (relation === 'descendant') via = '{DESCENDANT_ACCOUNT_ID}';
    }
    if (via !== undefined) {
      decision.account = { index: i, via };
      chosen = o;
      break;
    }
  }
  if (!chosen) {
    decision.failedStep = 'account';
    return decision;
  }

  const args = lowerSegments(req.args);
  const { keys, matchers } = chosen;
  let k = 0;
  while (k < matchers.length && !matchers[k](args)) k++;
  if (k === matchers.length) {
    decision.arguments = { keys };
    decision.failedStep = 'arguments';
    return decision;
  }
  const verbs = chosen.verbs[k];
  decision.arguments = { keys, key: keys[k], verbs };

  const via = verbs.includes(req.method) ? req.method : verbs.includes(CATCH_ALL) ? CATCH_ALL : undefined;
  if (via === undefined) {
    decision.failedStep = 'verb';
    return decision;
  }
  decision.verb = { via };
  decision.allowed = true;
  return decision;
}

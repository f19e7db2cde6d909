import type { RestrictionCheck } from './check.js';
import type { Decision, LoginDecision, RestrictionStep } from './types.js';

const code = (s: string) => `\`${s}\``;
const list = (items: readonly string[]) => items.map(code).join(', ');
const ordinal = (index: number) => `#${index + 1}`;

function argsText(args: readonly string[]): string {
  return args.length === 0 ? 'no arguments' : `the arguments ${code(args.join('/'))}`;
}

function accountText(d: Decision): string {
  const { accountId, accountRelation } = d.request;
  switch (accountRelation) {
    case 'none':
      return 'the path names no account';
    case 'own':
      return `the path names account ${accountId}, the token's own account`;
    case 'descendant':
      return `the path names account ${accountId}, a descendant of the token's account`;
    default:
      return `the path names account ${accountId}, which is not the token's own account`;
  }
}

function endpointLine(d: Decision): string {
  const name = code(d.request.endpoint);
  const e = d.endpoint;
  if (e.key === undefined) return `Endpoint: the request's endpoint is ${name}; the rules have no entry for it and no catch-all ${code('_')} entry.`;
  const count = `${e.ruleObjects} rule object${e.ruleObjects === 1 ? '' : 's'}${e.singleObject ? ', written as a single object' : ''}`;
  if (e.key.toLowerCase() === d.request.endpoint.toLowerCase()) {
    return `Endpoint: the request's endpoint is ${name}; the rules have an entry for it (${count}).`;
  }
  return `Endpoint: the request's endpoint is ${name}; the rules have no entry for it, so the catch-all ${code('_')} entry is used (${count}).`;
}

function accountLine(d: Decision): string {
  if (d.account) {
    const { index, via } = d.account;
    const how =
      via === '(missing)'
        ? `has no ${code('allowed_accounts')}, which means any account`
        : via === '_'
          ? `lists ${code('_')}, which means any account`
          : via.startsWith('{')
            ? `lists ${code(via)}`
            : `lists that account id`;
    return `Account: ${accountText(d)}; rule object ${ordinal(index)} ${how}.`;
  }
  const n = d.endpoint.ruleObjects ?? 0;
  if (n === 0) return `Account: ${accountText(d)}; the endpoint entry holds no rule objects.`;
  const only = d.request.accountRelation === 'none' ? ` (without an account in the path only a missing ${code('allowed_accounts')} or ${code('_')} matches)` : '';
  const none = n === 1 ? 'the only rule object does not allow it' : `none of the ${n} rule objects allows it`;
  return `Account: ${accountText(d)}; ${none}${only}.`;
}

function argumentsLine(d: Decision): string {
  const a = d.arguments!;
  const which = `rule object ${ordinal(d.account!.index)}`;
  if (a.key !== undefined) {
    const before = a.keys.indexOf(a.key);
    const skipped = before > 0 ? `, after ${list(a.keys.slice(0, before))} did not` : '';
    return `Arguments: ${argsText(d.request.args)} match key ${code(a.key)} of ${which}${skipped}.`;
  }
  if (a.keys.length === 0) return `Arguments: ${which} has no argument keys, so ${argsText(d.request.args)} match nothing.`;
  return `Arguments: ${argsText(d.request.args)} match none of the keys of ${which} (${list(a.keys)}).`;
}

function verbLine(d: Decision): string {
  const verbs = d.arguments!.verbs ?? [];
  const key = code(d.arguments!.key!);
  const method = d.request.method;
  if (d.verb) {
    return d.verb.via === method
      ? `Verb: key ${key} lists ${method}.`
      : `Verb: key ${key} lists ${code('_')}, which allows any method, ${method} included.`;
  }
  if (verbs.length === 0) return `Verb: key ${key} has an empty verb list, which allows no method.`;
  return `Verb: key ${key} allows ${verbs.join(', ')}, not ${method}.`;
}

const STEPS: readonly RestrictionStep[] = ['endpoint', 'account', 'arguments', 'verb'];

/** One sentence per step of a template decision, saying what matched or why nothing did. */
export function explain(d: Decision): string[] {
  const lines = [endpointLine(d)];
  const stop = d.failedStep ? STEPS.indexOf(d.failedStep) : STEPS.length;
  if (stop >= 1) lines.push(accountLine(d));
  if (stop >= 2) lines.push(argumentsLine(d));
  if (stop >= 3) lines.push(verbLine(d));
  for (const step of STEPS.slice(stop + 1)) lines.push(`${step[0].toUpperCase()}${step.slice(1)}: not reached.`);
  lines.push(d.allowed ? `Allowed by the token's rules.` : `Denied by the token's rules at the ${d.failedStep} step.`);
  return lines;
}

/** Sentences for a second-form decision. */
export function explainLogin(d: LoginDecision): string[] {
  const path = code(d.segments.join('/'));
  const verb = d.method.toLowerCase();
  if (d.matched) {
    return [`Login restrictions: ${path} matches pattern ${code(d.matched.pattern)} under ${code(d.matched.key)}; allowed.`];
  }
  if (d.keys.length === 0) {
    return [`Login restrictions: there are no patterns under ${code(verb)} or ${code('*')}; denied.`];
  }
  return [`Login restrictions: ${path} matches no pattern under ${list(d.keys)}; denied.`];
}

/** Sentences for a whole check: the template steps, then the login restrictions. */
export function explainCheck(c: RestrictionCheck): string[] {
  const lines: string[] = [];
  if (!c.template && !c.login) return ['The token carries no restrictions; every request passes this check.'];
  if (c.template) lines.push(...explain(c.template));
  else lines.push('The token carries no template rules.');
  if (c.login) lines.push(...explainLogin(c.login));
  return lines;
}

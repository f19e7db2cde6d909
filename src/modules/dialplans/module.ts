import type { Core } from '../../core-type.js';
import { isObject } from '../../util/json.js';
import { getAccount } from '../accounts/service.js';
import type { TelModule } from '../types.js';

/** The system configuration category whose `default` node holds the dial plans accounts may use. */
export const DIALPLANS_CATEGORY = 'dialplans';

/**
 * The dial plans an account may choose from, as Kazoo derives them from the `dialplans` system
 * category: each rule keyed by its `name` (with its pattern as `regex`), else by its pattern (with
 * it as `name`); a list under one pattern gives each of its rules.
 */
export function dialplans(core: Core, accountId: string): Record<string, unknown> {
  getAccount(core, accountId);
  const node = core.config.get(DIALPLANS_CATEGORY)?.default;
  const out: Record<string, unknown> = {};
  const add = (pattern: string, rule: unknown) => {
    if (Array.isArray(rule)) return rule.forEach((r) => add(pattern, r));
    const r = isObject(rule) ? rule : {};
    if (typeof r.name === 'string' && r.name !== '') out[r.name] = { ...r, regex: pattern };
    else out[pattern] = { ...r, name: pattern };
  };
  if (isObject(node)) for (const [pattern, rule] of Object.entries(node)) add(pattern, rule);
  return out;
}

/** `GET /v2/accounts/{id}/dialplans`: Kazoo's `cb_dialplans`. */
export const dialplansModule: TelModule = {
  name: 'dialplans',
  endpoints: ['dialplans'],
  routes: [
    {
      method: 'GET',
      path: 'accounts/:account_id/dialplans',
      response: { type: 'object', description: "each dial plan by its name: its rule, with its pattern as `regex` (or as `name` when it has none)", additionalProperties: { type: 'object' } },
      handler: (ctx, core) => ({ data: dialplans(core, ctx.params.account_id) }),
    },
  ],
};

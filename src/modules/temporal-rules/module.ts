import { documentService, flaggedRow } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
import type { StoredDoc } from '../documents/store.js';
import type { TelModule } from '../types.js';
import { temporalRuleSchema, temporalRuleSetSchema } from './schema.js';

/** Temporal rules: times of day, week, month or year. */
export const temporalRules = documentService({
  kind: 'temporal_rule',
  endpoint: 'temporal_rules',
  summary: ['name', 'type', 'flags'],
  row: flaggedRow(['name', 'type']),
  rowFields: { type: { type: 'string' } },
  schema: temporalRuleSchema,
});

/** A rule set's listing row: its name, its rules (as `rules`) and flags. */
function ruleSetRow(d: StoredDoc): Record<string, unknown> {
  return { ...flaggedRow(['name'])(d), ...(d.doc.temporal_rules !== undefined ? { rules: d.doc.temporal_rules } : {}) };
}

/** Temporal rule sets: rules a callflow checks together. */
export const temporalRuleSets = documentService({
  kind: 'temporal_rule_set',
  endpoint: 'temporal_rules_sets',
  summary: ['name', 'rules', 'flags'],
  row: ruleSetRow,
  rowFields: { rules: { type: 'array', items: { type: 'string' } } },
  schema: temporalRuleSetSchema,
});

/** `/v2/accounts/{id}/temporal_rules` and `/temporal_rules_sets`: Kazoo's `cb_temporal_rules` and `cb_temporal_rules_sets`. */
export const temporalRulesModule: TelModule = {
  name: 'temporal_rules',
  endpoints: ['temporal_rules', 'temporal_rules_sets'],
  routes: [...documentRoutes(temporalRules), ...documentRoutes(temporalRuleSets)],
};

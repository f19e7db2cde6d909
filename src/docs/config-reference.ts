import type { ConfigCategory, ConfigKey } from '../modules/config/categories.js';
import { MODULES } from '../modules/index.js';
import { anchor, code, fence, table } from './markdown.js';

/** The categories the modules declare, by name. */
export function declaredCategories(): ConfigCategory[] {
  return MODULES.flatMap((m) => m.configs ?? []).sort((a, b) => a.name.localeCompare(b.name));
}

/** A key's type with its bounds: `integer, at least 1`. */
function typeText(key: ConfigKey): string {
  const rules: string[] = [key.type];
  if (key.minimum !== undefined) rules.push(`at least ${key.minimum}`);
  if (key.maximum !== undefined) rules.push(`at most ${key.maximum}`);
  if (key.enum) rules.push(`one of ${key.enum.map((v) => code(JSON.stringify(v))).join(', ')}`);
  if (key.pattern) rules.push(`matching ${code(key.pattern)}`);
  return rules.join(', ');
}

function renderCategory(category: ConfigCategory): string {
  const rows = Object.entries(category.keys).map(([name, key]) => [
    code(name),
    typeText(key),
    key.default === undefined ? '(none)' : code(JSON.stringify(key.default)),
    key.description,
  ]);
  return [`## ${category.name}`, category.description, table(['Key', 'Type', 'Default', 'Meaning'], rows)].join('\n\n');
}

/** docs/configuration.md: every configuration category and key with its default, type and meaning, from the modules' declarations. */
export function configReference(categories: ConfigCategory[] = declaredCategories()): string {
  return [
    '# Configuration reference',
    '<!-- Made by `npm run docs` from the configuration categories the modules declare (`configs` in src/modules/): change them there, then run it again. -->',
    "tel's settings are system configuration categories stored in the database. tel reads each key from its category's `default` node; a key that is not set has its default. Change them with `tel config` (also while a server runs on the file), or through the API with `POST /v2/system_configs/{category}` and `{\"data\": {\"default\": {…}}}`:",
    fence(
      'sh runnable',
      [
        'tel config get webhooks                             # the category as it applies: what is set, over the defaults',
        'tel config set webhooks attempt_failure_count 3     # one key',
        'tel config set webhooks \'{"default":{"attempt_failure_count":3,"retry_base_delay_ms":500}}\'   # the whole category',
      ].join('\n'),
    ),
    "A value that does not fit its key (its type, its bounds) is refused: 400 with Kazoo's `{\"default.KEY\": {RULE: {message}}}`, or exit 1 from `tel config set`. String forms are read as Kazoo reads them (`\"600\"` is 600); keys not listed here are kept as given.",
    "An account's settings of a category (`/v2/accounts/{id}/configs/{category}`, `tel config … --account ID`) apply over its reseller's, which apply over the `default` node, as Kazoo layers them. One key tel reads is not listed below: `number_manager` `e164_converters`, the rules that write a callflow's numbers as E.164, looked up as Kazoo does (the account's settings of the category, else its reseller's, else the `default` node, else Kazoo's three rules).",
    table(
      ['Category', 'What it governs'],
      categories.map((c) => [`[${c.name}](#${anchor(c.name)})`, c.description]),
    ),
    ...categories.map(renderCategory),
  ].join('\n\n') + '\n';
}

import type { Command } from 'commander';
import { canonicalCategory } from '../modules/config/service.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../util/json.js';
import { CliError, emit, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

function parseValue(raw: string): unknown {
  if (jsonTooDeep(raw)) throw new CliError(`The value nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`, 2);
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** `tel config get|set|delete`: system configuration categories, and an account's (`--account`). */
export function defineConfig(config: Command, io: CliIo): void {
  config.addHelpText(
    'after',
    `\nExamples:\n  $ tel config set crossbar.auth token_expiry_s 600\n  $ tel config get crossbar.auth\n  $ tel config set webhooks attempt_failure_count 3\n  $ tel config set webhooks attempt_failure_count 2 --account <id>     one account's setting\n  $ tel config set api.token_restrictions '{"default":{"cb_api_auth":{"_":{"_":[{"rules":{"#":["GET"]}}]}}}}'\n\nValues are JSON when they parse as JSON, else strings. System keys live under the "default" node; an\naccount's settings of a category (as /v2/accounts/{id}/configs/{category}) override its reseller's,\nwhich override them.`,
  );

  withGlobals(config.command('get [category] [key]'))
    .description('a category as it applies (stored settings over the built-in ones), one key of it, or the categories')
    .option('--stored', 'only what is stored, without the built-in settings')
    .option('--account <account>', "the category as it applies to this account (its settings over its reseller's over the system's)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel config get                                    the categories set, and those with built-in settings\n  $ tel config get webhooks                           delivery settings as they apply\n  $ tel config get crossbar.auth token_expiry_s --json\n  $ tel config get crossbar.auth --stored             only what was set\n  $ tel config get webhooks --account <id>            as they apply to one account',
    )
    .action(async (category: string | undefined, key: string | undefined, opts: { stored?: boolean; account?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        if (opts.account) {
          if (!category) throw new CliError('Name the CATEGORY of the account to show.', 2);
          const id = existingAccount(core, opts.account);
          const doc = opts.stored ? { ...(core.config.forAccount(id, category) ?? {}) } : core.config.accountView(id, category, true);
          emitSettings(io, g, doc, key, `${canonicalCategory(category)} of ${id}`);
          return;
        }
        if (!category) {
          const list = core.config.list();
          const builtIn = core.config.known().filter((c) => !list.includes(c));
          emit(io, g, list, () =>
            [list.length ? list.join('\n') : '(no categories set)', builtIn.length ? `built-in settings only: ${builtIn.join(', ')}` : '']
              .filter(Boolean)
              .join('\n'),
          );
          return;
        }
        const name = canonicalCategory(category);
        const doc = opts.stored ? core.config.get(name) : core.config.withDefaults(name);
        if (key) {
          emitSettings(io, g, doc?.default ?? {}, key, name);
          return;
        }
        if (!doc) throw new CliError(`No configuration for ${name}${opts.stored ? '' : ' (and no built-in settings)'}.`);
        emit(io, { ...g, json: true }, doc);
      }),
    );

  withGlobals(config.command('set <category> <keyOrDoc> [value]'))
    .description("set one key of the default node, or replace the whole category with a JSON document; with --account, the account's settings")
    .option('--account <account>', "change this account's settings of the category")
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel config set crossbar.auth token_expiry_s 600\n  $ tel config set services limits '{"inbound_trunks":{"rate":6.99}}'\n  $ tel config set webhooks '{"default":{"attempt_failure_count":3,"retry_base_delay_ms":500}}'\n  $ tel config set storage synchronous full    each commit on disk before it is answered (survives a power cut)\n  $ tel config set conferences pin_timeout 3000 --account <id>\n\nA VALUE is JSON when it parses as JSON, else a string; a lone JSON object replaces the category\n(with --account: the account's settings of it). An account keeps only what differs from its reseller's\nand the system's.`,
    )
    .action(async (category: string, keyOrDoc: string, value: string | undefined, opts: { account?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const whole = value === undefined ? wholeDocument(keyOrDoc) : undefined;
        let doc;
        if (opts.account) {
          const id = existingAccount(core, opts.account);
          doc = whole ? core.config.changeForAccount(id, category, whole, 'replace') : core.config.changeForAccount(id, category, { [keyOrDoc]: parseValue(value!) }, 'merge');
        } else {
          doc = whole ? core.config.set(category, whole) : core.config.setValue(category, keyOrDoc, parseValue(value!));
        }
        emit(io, g, doc, () => `Saved ${canonicalCategory(category)}${opts.account ? ` of ${opts.account}` : ''}.`);
      }),
    );

  withGlobals(config.command('delete <category> [key]'))
    .description("remove a category, one key of its default node, or (--account) an account's settings of it")
    .option('--account <account>', "remove this account's settings (it then inherits the system's)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel config delete conferences\n  $ tel config delete crossbar.auth token_expiry_s\n  $ tel config delete webhooks --account <id>\n  $ tel config delete webhooks attempt_failure_count --account <id>',
    )
    .action(async (category: string, key: string | undefined, opts: { account?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const name = canonicalCategory(category);
        let doc: unknown;
        if (opts.account) {
          const id = existingAccount(core, opts.account);
          if (key) {
            const { [key]: _gone, ...rest } = core.config.forAccount(id, name) ?? {};
            doc = core.config.changeForAccount(id, name, rest, 'replace');
          } else doc = core.config.resetForAccount(id, name);
        } else if (key) {
          const { id: _id, ...nodes } = core.config.get(name) ?? { id: name };
          const { [key]: _gone, ...rest } = nodes.default ?? {};
          doc = core.config.set(name, { ...nodes, default: rest });
        } else {
          doc = core.config.remove(name);
          if (!doc) throw new CliError(`No configuration for ${name}.`);
        }
        emit(io, g, doc, () => `Removed ${key ? `${key} of ` : ''}${name}${opts.account ? ` of ${opts.account}` : ''}.`);
      }),
    );
}

/** A lone JSON object given for a whole category; anything else is a usage error. */
function wholeDocument(text: string): Record<string, unknown> {
  const parsed = parseValue(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError('Give a KEY and a VALUE, or one JSON object for the whole category.', 2);
  }
  return parsed as Record<string, unknown>;
}

/** Prints settings, or one key of them (refused when it has none). */
function emitSettings(io: CliIo, g: { json: boolean; db: string }, settings: Record<string, unknown>, key: string | undefined, what: string): void {
  if (!key) {
    emit(io, { ...g, json: true }, settings);
    return;
  }
  const v = settings[key];
  if (v === undefined) throw new CliError(`${what} has no key ${key}.`);
  emit(io, g, v, () => (typeof v === 'string' ? v : JSON.stringify(v)));
}

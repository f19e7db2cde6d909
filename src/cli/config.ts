import type { Command } from 'commander';
import { canonicalCategory } from '../modules/config/service.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../util/json.js';
import { CliError, emit, withCore, withGlobals, type CliIo } from './io.js';

function parseValue(raw: string): unknown {
  if (jsonTooDeep(raw)) throw new CliError(`The value nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`, 2);
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** `tel config get|set`: system configuration categories. */
export function registerConfig(program: Command, io: CliIo): void {
  const config = program
    .command('config')
    .description('read and change system configuration (system_configs categories)')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel config set crossbar.auth token_expiry_s 600\n  $ tel config get crossbar.auth\n  $ tel config set webhooks attempt_failure_count 3\n  $ tel config set api.token_restrictions '{"default":{"cb_api_auth":{"_":{"_":[{"rules":{"#":["GET"]}}]}}}}'\n\nValues are JSON when they parse as JSON, else strings. Keys live under the "default" node.`,
    );

  withGlobals(config.command('get [category] [key]'))
    .description('a category as it applies (stored settings over the built-in ones), one key of it, or the categories')
    .option('--stored', 'only what is stored, without the built-in settings')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel config get                                    the categories set, and those with built-in settings\n  $ tel config get webhooks                           delivery settings as they apply\n  $ tel config get crossbar.auth token_expiry_s --json\n  $ tel config get crossbar.auth --stored             only what was set',
    )
    .action(async (category: string | undefined, key: string | undefined, opts: { stored?: boolean }, cmd: Command) =>
      withCore(cmd, (core, g) => {
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
          const v = doc?.default?.[key];
          if (v === undefined) throw new CliError(`${name} has no key ${key}.`);
          emit(io, g, v, () => (typeof v === 'string' ? v : JSON.stringify(v)));
          return;
        }
        if (!doc) throw new CliError(`No configuration for ${name}${opts.stored ? '' : ' (and no built-in settings)'}.`);
        emit(io, { ...g, json: true }, doc);
      }),
    );

  withGlobals(config.command('set <category> <keyOrDoc> [value]'))
    .description('set one key of the default node, or replace the whole category with a JSON document')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel config set crossbar.auth token_expiry_s 600\n  $ tel config set services limits '{"inbound_trunks":{"rate":6.99}}'\n  $ tel config set webhooks '{"default":{"attempt_failure_count":3,"retry_base_delay_ms":500}}'\n  $ tel config set storage synchronous full    each commit on disk before it is answered (survives a power cut)\n\nA VALUE is JSON when it parses as JSON, else a string; a lone JSON object replaces the category.`,
    )
    .action(async (category: string, keyOrDoc: string, value: string | undefined, _o: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        let doc;
        if (value === undefined) {
          const parsed = parseValue(keyOrDoc);
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            throw new CliError('Give a KEY and a VALUE, or one JSON object for the whole category.', 2);
          }
          doc = core.config.set(category, parsed as Record<string, unknown>);
        } else {
          doc = core.config.setValue(category, keyOrDoc, parseValue(value));
        }
        emit(io, g, doc, () => `Saved ${canonicalCategory(category)}.`);
      }),
    );
}

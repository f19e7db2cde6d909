import type { Argument, Command, Option } from 'commander';
import { MODULES } from '../modules/index.js';
import { CATEGORY_ALIASES } from '../modules/config/service.js';

/**
 * What a shell may offer as a value: fixed words, file names, account ids (read from the
 * database by `tel __complete accounts`), or the keys of the configuration category named
 * by the command's first argument.
 */
export type Values = { kind: 'words'; words: string[] } | { kind: 'files' } | { kind: 'accounts' } | { kind: 'config-keys' };

/** One option of a command: its names, what it is for, and its value when it takes one. */
export interface OptionSpec {
  names: string[];
  description: string;
  takesValue: boolean;
  values?: Values;
}

/** One command as a shell sees it: the words that lead to it, and what may follow them. */
export interface CommandSpec {
  /** `webhooks create` ('' for tel itself) */
  path: string;
  description: string;
  subcommands: CommandSpec[];
  options: OptionSpec[];
  /** names of the options that take a value, here or on a command above (`tel accounts --db x list`) */
  valued: string[];
  /** what each positional argument may be (undefined: anything) */
  args: (Values | undefined)[];
}

/** Everything the generated scripts hold: the command tree and the configuration keys by category. */
export interface CompletionModel {
  root: CommandSpec;
  /** every command, the root first */
  commands: CommandSpec[];
  /** keys by configuration category, aliases included */
  configKeys: Record<string, string[]>;
}

function optionValues(option: Option): Values | undefined {
  if (option.argChoices) return { kind: 'words', words: option.argChoices };
  // the CLI's account options say so (`--account <account>`): an id, a name or a realm
  if (/<account>/.test(option.flags)) return { kind: 'accounts' };
  if (/<file>/.test(option.flags)) return { kind: 'files' };
  return undefined;
}

function argumentValues(path: string, index: number, arg: Argument, categories: string[]): Values | undefined {
  if (arg.argChoices) return { kind: 'words', words: arg.argChoices };
  if (arg.name() === 'account') return { kind: 'accounts' };
  if (arg.name() === 'file' || arg.name() === 'recording') return { kind: 'files' };
  if (path.startsWith('config ') && arg.name() === 'category') return { kind: 'words', words: categories };
  if (path.startsWith('config ') && index === 1) return { kind: 'config-keys' };
  return undefined;
}

function visible(cmd: Command): Command[] {
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => c.name() !== 'help');
}

/** The completion model of a commander program: its visible commands and options, and the values worth offering. */
export function completionModel(program: Command): CompletionModel {
  const configKeys: Record<string, string[]> = {};
  for (const category of MODULES.flatMap((m) => m.configs ?? [])) configKeys[category.name] = Object.keys(category.keys);
  for (const [alias, name] of Object.entries(CATEGORY_ALIASES)) if (configKeys[name]) configKeys[alias] = configKeys[name];
  const categories = Object.keys(configKeys).sort();

  const commands: CommandSpec[] = [];
  const spec = (cmd: Command, path: string, inherited: string[]): CommandSpec => {
    const node: CommandSpec = {
      path,
      description: cmd.description(),
      subcommands: [],
      options: cmd
        .createHelp()
        .visibleOptions(cmd)
        .map((o) => ({
          names: [o.short, o.long].filter((n): n is string => Boolean(n)),
          description: o.description,
          takesValue: o.required || o.optional,
          values: optionValues(o),
        })),
      valued: [],
      args: cmd.registeredArguments.map((a, i) => argumentValues(path, i, a, categories)),
    };
    node.valued = [...new Set([...inherited, ...node.options.filter((o) => o.takesValue).flatMap((o) => o.names)])];
    commands.push(node);
    node.subcommands = visible(cmd).map((c) => spec(c, path ? `${path} ${c.name()}` : c.name(), node.valued));
    return node;
  };
  const root = spec(program, '', []);
  return { root, commands, configKeys };
}

/** The name a subcommand is typed as: the last word of its path. */
export function nameOf(cmd: CommandSpec): string {
  return cmd.path.slice(cmd.path.lastIndexOf(' ') + 1);
}

/** Every (command, option or argument, values) the scripts complete values for: `--hook` or `#1` for the first argument. */
export function valueSlots(model: CompletionModel): { path: string; slot: string; values: Values }[] {
  return model.commands.flatMap((c) => [
    ...c.options.flatMap((o) => (o.values ? o.names.map((slot) => ({ path: c.path, slot, values: o.values! })) : [])),
    ...c.args.flatMap((values, i) => (values ? [{ path: c.path, slot: `#${i + 1}`, values }] : [])),
  ]);
}

/** Quotes a word for a POSIX shell (bash, zsh): single quotes, a single quote inside as '\''. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A bash or zsh function that runs the action of the first pattern `subject` matches (patterns are quoted: matched as they are). */
export function caseFunction(name: string, subject: string, arms: [pattern: string, action: string][]): string {
  const body = arms.map(([pattern, action]) => `    ${pattern === '*' ? '*' : shellQuote(pattern)})${action.startsWith('\n') ? '' : ' '}${action} ;;`);
  return `${name}() {\n  case ${subject} in\n${body.join('\n')}\n  esac\n}`;
}

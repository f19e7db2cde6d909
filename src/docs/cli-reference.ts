import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';
import { anchor, code, fence, prose, sentence, table } from './markdown.js';

/** The commands `tel --help` lists, below `cmd`, in its order (the help command and hidden ones left out). */
export function visibleCommands(cmd: Command): Command[] {
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => c.name() !== 'help');
}

/** `tel webhooks create`: a command's full name. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** What `addHelpText('after', …)` added to a command's help: its examples and notes. */
export function helpAfter(cmd: Command): string {
  let text = '';
  // commander keeps the text in a listener of the command's `afterHelp` event (a Command is an EventEmitter)
  for (const listener of (cmd as unknown as EventEmitter).listeners('afterHelp')) listener({ error: false, command: cmd, write: (s: string) => (text += s) });
  return text.replace(/^\n+/, '').replace(/\s+$/, '');
}

/** An option's description with what the help adds: required, the values it takes, its default. */
function optionText(option: Option): string {
  const parts = [prose(sentence(option.description))];
  if (option.mandatory) parts.push('Required.');
  if (option.argChoices) parts.push(`One of ${option.argChoices.map(code).join(', ')}.`);
  const shown = option.defaultValueDescription ?? defaultText(option.defaultValue);
  if (shown !== undefined && !option.negate) parts.push(`Default: ${code(shown)}.`);
  return parts.join(' ');
}

function defaultText(value: unknown): string | undefined {
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A command's examples and notes as Markdown: each `$ tel …  comment` line of an Examples section
 * becomes a shell line with the comment after `#`; indented notes stay as the terminal shows them,
 * the rest is prose.
 */
export function renderHelpText(text: string): string {
  const out: string[] = [];
  for (const section of text.split(/\n\s*\n/)) {
    const lines = section.split('\n');
    if (/^Examples?:$/.test(lines[0])) {
      const shell = lines.slice(1).map((line) => {
        const m = /^\s*\$ (.*?)(\s{2,})(\S.*)?$/.exec(line) ?? /^\s*\$ (.*)$/.exec(line);
        if (!m) return `# ${line.trim()}`;
        return m[3] ? `${m[1]}${m[2]}# ${m[3]}` : m[1];
      });
      out.push(`${lines[0]}\n\n${fence('sh', shell.join('\n'))}`);
    } else if (lines.some((l) => /^\s/.test(l))) {
      out.push(fence('text', section));
    } else {
      out.push(prose(section));
    }
  }
  return out.join('\n\n');
}

function renderCommand(cmd: Command, globals: ReadonlySet<string>, depth: number): string {
  const help = cmd.createHelp();
  const parts = [`${'#'.repeat(depth)} ${commandPath(cmd)}`, prose(sentence(cmd.description())), fence('sh', help.commandUsage(cmd))];
  const args = cmd.registeredArguments.filter((a) => a.description || a.argChoices);
  if (args.length > 0) {
    const text = (a: (typeof args)[number]) => [prose(sentence(a.description)), a.argChoices ? `One of ${a.argChoices.map(code).join(', ')}.` : ''].filter(Boolean).join(' ');
    parts.push(table(['Argument', 'Description'], args.map((a) => [code(a.name()), text(a)])));
  }
  const options = help.visibleOptions(cmd).filter((o) => o.long !== '--help' && !globals.has(o.long ?? ''));
  if (options.length > 0) parts.push(table(['Option', 'Description'], options.map((o) => [code(o.flags), optionText(o)])));
  const after = helpAfter(cmd);
  if (after) parts.push(renderHelpText(after));
  return [parts.join('\n\n'), ...visibleCommands(cmd).map((c) => renderCommand(c, globals, depth + 1))].join('\n\n');
}

/** docs/cli.md: every command and option of `tel` with its examples, from the commander program. */
export function cliReference(program: Command): string {
  const globals = new Set(program.options.map((o) => o.long ?? ''));
  const all = (cmd: Command): Command[] => visibleCommands(cmd).flatMap((c) => [c, ...all(c)]);
  const programOptions = program
    .createHelp()
    .visibleOptions(program)
    .map((o) => [code(o.flags), optionText(o)]);
  return [
    '# Command reference',
    '<!-- Made by `npm run docs` from the commander program (src/cli/): change the commands there, then run it again. -->',
    'Every `tel` command with its options and examples: what `tel COMMAND --help` prints, in one page to search.',
    '## Global options',
    'These work on every command, before or after it (`tel --db lab.db accounts list` or `tel accounts list --db lab.db`).',
    table(['Option', 'Description'], programOptions),
    renderHelpText(helpAfter(program)),
    '## Commands',
    table(
      ['Command', 'What it does'],
      all(program).map((c) => [`[${commandPath(c)}](#${anchor(commandPath(c))})`, prose(sentence(c.description()))]),
    ),
    ...visibleCommands(program).map((c) => renderCommand(c, globals, 2)),
  ].join('\n\n') + '\n';
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { GENERATED_PAGES } from './pages.js';
import { cliReference, renderHelpText } from './cli-reference.js';
import { configReference } from './config-reference.js';
import { anchor, prose } from './markdown.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the reference pages made from the code', () => {
  it.each(GENERATED_PAGES)('$file is what `npm run docs` makes of the code now', async ({ file, render }) => {
    const committed = readFileSync(`${root}/${file}`, 'utf8');
    expect(committed, `${file} is out of date: run \`npm run docs\` and commit it`).toBe(await render());
  });

  it('the command reference has every command, option, default, choice and example, and no hidden command', () => {
    const program = new Command('demo').option('--db <file>', 'database file');
    const group = program.command('things').description('manage things').addHelpText('after', '\nExamples:\n  $ demo things add x   add one');
    group
      .command('add <name>')
      .description('add a thing')
      .option('--db <file>', 'database file')
      .option('--size <n>', 'how big', '3')
      .requiredOption('--kind <k>', 'what kind')
      .option('--flavour <f|@file>', 'taste <sweet> *or* _sour_')
      .addHelpText('after', '\nExample:\n  $ demo things add x --kind a\n\nAdds it for good.');
    program.command('secret', { hidden: true }).description('not for people');
    const page = cliReference(program);
    expect(page).toContain('## demo things\n\nManage things.');
    expect(page).toContain('### demo things add\n\nAdd a thing.\n\n```sh\ndemo things add [options] <name>\n```');
    expect(page).toContain('| `--size <n>` | How big. Default: `3`. |');
    expect(page).toContain('| `--kind <k>` | What kind. Required. |');
    expect(page).toContain('| `--flavour <f\\|@file>` | Taste \\<sweet\\> \\*or\\* \\_sour\\_. |');
    expect(page).toContain('```sh\ndemo things add x   # add one\n```');
    expect(page).toContain('Adds it for good.');
    expect(page).toContain('[demo things add](#demo-things-add)');
    // the global option is listed once, not in every command's table
    expect(page.match(/`--db <file>`/g)).toHaveLength(1);
    expect(page).not.toContain('secret');
  });

  it('help text: examples become shell lines with their comments, indented notes stay as printed, prose is escaped', () => {
    const md = renderHelpText('Example:\n  $ tel x --a 1      first\n  {"out": 1}\n\nWho:\n  - one\n  - two\n\nUse `tel x` with <id> *now*.');
    expect(md).toBe('Example:\n\n```sh\ntel x --a 1      # first\n# {"out": 1}\n```\n\n```text\nWho:\n  - one\n  - two\n```\n\nUse `tel x` with \\<id\\> \\*now\\*.');
    expect(prose('a `<b>` c_d')).toBe('a `<b>` c\\_d');
    expect(anchor('tel simulate queue-call')).toBe('tel-simulate-queue-call');
    expect(anchor('api.token_restrictions')).toBe('apitoken_restrictions');
  });

  it('the configuration reference shows each key with its type, bounds, default and meaning', () => {
    const page = configReference([
      {
        name: 'demo.things',
        description: 'What things do.',
        keys: {
          size_ms: { type: 'integer', minimum: 1, maximum: 9, default: 3, description: 'How long a thing lasts.' },
          label: { type: 'string', pattern: '^\\w+$', description: 'Its name | or none.' },
        },
      },
    ]);
    expect(page).toContain('| [demo.things](#demothings) | What things do. |');
    expect(page).toContain('| `size_ms` | integer, at least 1, at most 9 | `3` | How long a thing lasts. |');
    expect(page).toContain('| `label` | string, matching `^\\w+$` | (none) | Its name \\| or none. |');
  });
});

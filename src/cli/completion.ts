import { Argument, type Command } from 'commander';
import { VERSION } from '../version.js';
import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { zshScript } from '../completion/zsh.js';
import { completionModel } from '../completion/model.js';
import { accountChoices } from '../modules/accounts/choices.js';
import { globalsOf, withGlobals, type CliIo } from './io.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript };

/** `tel completion bash|zsh|fish`, and the hidden `tel __complete` the scripts call for values read from the database. */
export function registerCompletion(program: Command, io: CliIo): void {
  withGlobals(program.command('completion'))
    .description('print the shell completion script of tel (commands, options, hook types, configuration keys, account ids)')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(Object.keys(SCRIPTS)))
    .addHelpText(
      'after',
      `
Examples:
  $ tel completion bash > ~/.local/share/bash-completion/completions/tel   bash, loaded when first needed
  $ echo 'source <(tel completion bash)' >> ~/.bashrc                       bash, without bash-completion
  $ tel completion zsh > "\${fpath[1]}/_tel"                                 zsh, then start a new shell
  $ tel completion fish > ~/.config/fish/completions/tel.fish              fish

Account ids are offered by name too (--account Cust<Tab>): the script asks \`tel __complete\`, which
reads the database of --db (or $TEL_DB, else ./tel.db) read-only. A script written to a file
describes this version of tel: write it again after an upgrade.`,
    )
    .action((shell: keyof typeof SCRIPTS) => {
      io.out(SCRIPTS[shell](completionModel(program), VERSION));
    });

  withGlobals(program.command('__complete', { hidden: true }))
    .description('values for the completion scripts: account ids and names (id, a tab, name; one a line)')
    .argument('<what>', 'accounts')
    .argument('[prefix]', 'what was typed so far', '')
    .addHelpText('after', '\nExample:\n  $ tel __complete accounts Cust --db lab.db')
    .action((what: string, prefix: string, _opts: unknown, cmd: Command) => {
      // Silent whatever happens: a shell shows nothing rather than an error in the middle of a line.
      if (what !== 'accounts') return;
      try {
        const lines = accountChoices(globalsOf(cmd).db, prefix).map((a) => `${a.id}\t${a.name.replace(/[\t\r\n]/g, ' ')}`);
        if (lines.length > 0) io.out(lines.join('\n'));
      } catch {
        /* no database, or not one of tel's: nothing to offer */
      }
    });
}

import type { Command } from 'commander';
import { VERSION } from '../version.js';
import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { zshScript } from '../completion/zsh.js';
import { completionModel } from '../completion/model.js';
import { accountChoices } from '../modules/accounts/choices.js';
import { globalsOf, type CliIo } from './io.js';
import { defineAll } from './definitions.js';
import type { Shell } from '../completion/shells.js';

const SCRIPTS: Record<Shell, typeof bashScript> = { bash: bashScript, zsh: zshScript, fish: fishScript };

/** `tel completion bash|zsh|fish`: the script, made from the whole program. */
export function defineCompletion(completion: Command, io: CliIo): void {
  completion
    .addHelpText(
      'after',
      `
Examples:
  $ tel completion bash > ~/.local/share/bash-completion/completions/tel   bash, loaded when first needed
  $ echo 'source <(tel completion bash)' >> ~/.bashrc                       bash, without bash-completion
  $ tel completion zsh > "\${fpath[1]}/_tel"                                 zsh, then start a new shell
  $ tel completion fish > ~/.config/fish/completions/tel.fish              fish

Accounts are offered by name (--account Cust<Tab>; every account option takes a name), or by id
when an id is typed: the script asks \`tel __complete\`, which reads the database of --db (or $TEL_DB, else ./tel.db) read-only. A script written to a file
describes this version of tel: write it again after an upgrade.`,
    )
    .action(async (shell: Shell) => {
      const program = await defineAll(completion.parent!);
      io.out(SCRIPTS[shell](completionModel(program), VERSION));
    });
}

/** The hidden `tel __complete` the scripts call for values read from the database. */
export function defineComplete(complete: Command, io: CliIo): void {
  complete
    .argument('<what>', 'accounts')
    .argument('[prefix]', 'what was typed so far', '')
    .addHelpText('after', '\nExample:\n  $ tel __complete accounts Cust --db lab.db')
    .action((what: string, prefix: string, _opts: unknown, cmd: Command) => {
      // Silent whatever happens: a shell shows nothing rather than an error in the middle of a line.
      if (what !== 'accounts') return;
      try {
        const oneLine = (text: string) => text.replace(/[\t\r\n]/g, ' ');
        const lines = accountChoices(globalsOf(cmd).db, prefix).map((a) => `${oneLine(a.value)}\t${oneLine(a.description)}`);
        if (lines.length > 0) io.out(lines.join('\n'));
      } catch {
        /* no database, or not one of tel's: nothing to offer */
      }
    });
}

import type { Command } from 'commander';
import {
  accountJson,
  createAccount,
  deleteAccount,
  getAccount,
  listAccounts,
  listChildren,
  listDescendants,
} from '../modules/accounts/service.js';
import { emit, existingAccount, table, withCore, withGlobals, type CliIo } from './io.js';

/** `tel accounts …`: the account tree, offline on the database file. */
export function registerAccounts(program: Command, io: CliIo): void {
  const accounts = program
    .command('accounts')
    .description('list, show, create and delete accounts (the account tree)')
    .addHelpText('after', '\nExamples:\n  $ tel accounts list\n  $ tel accounts create "Customer A" --parent <master_id>\n  $ tel accounts show <id> --json');

  withGlobals(accounts.command('list'))
    .description('every account with its parent, or the descendants of one')
    .option('--under <id>', 'only the descendants of this account')
    .addHelpText('after', '\nExamples:\n  $ tel accounts list\n  $ tel accounts list --under <id> --json     the sub-accounts of one account, as JSON')
    .action(async (opts: { under?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const rows = (opts.under ? listDescendants(core, existingAccount(core, opts.under, '--under')) : listAccounts(core)).map((a) => ({
          id: a.id,
          name: a.name,
          realm: a.realm,
          parent_id: a.parentId,
          superduper_admin: a.superduper,
        }));
        emit(io, g, rows, () => table(rows, ['id', 'name', 'realm', 'parent_id']));
      }),
    );

  withGlobals(accounts.command('show <id>'))
    .description('one account, with its children')
    .addHelpText('after', '\nExamples:\n  $ tel accounts show <id>\n  $ tel accounts show <id> --json')
    .action(async (id: string, _o: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const a = getAccount(core, id);
        const value = { ...accountJson(a), tree: a.tree, children: listChildren(core, id).map((c) => c.id) };
        emit(io, g, value, () =>
          [`${a.name} (${a.id})`, `realm: ${a.realm}`, `parents: ${a.tree.join(' > ') || '(root)'}`, `children: ${value.children.length}`].join('\n'),
        );
      }),
    );

  withGlobals(accounts.command('create <name>'))
    .description('create an account under a parent')
    .requiredOption('--parent <id>', 'parent account id')
    .option('--realm <realm>', 'SIP realm (default: generated)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel accounts create "Customer A" --parent <master_id>\n  $ tel accounts create "Customer B" --parent <id> --realm b.lab.example --json',
    )
    .action(async (name: string, opts: { parent: string; realm?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const a = createAccount(core, { name, ...(opts.realm ? { realm: opts.realm } : {}) }, { parentId: opts.parent });
        emit(io, g, accountJson(a), () => `Created account ${a.name} (${a.id}) under ${opts.parent}.`);
      }),
    );

  withGlobals(accounts.command('delete <id>'))
    .description('delete an account that has no sub-accounts, with its documents and tokens')
    .addHelpText('after', '\nExample:\n  $ tel accounts delete <id>')
    .action(async (id: string, _o: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const a = deleteAccount(core, id);
        emit(io, g, { ...accountJson(a), _read_only: { deleted: true } }, () => `Deleted account ${a.name} (${a.id}).`);
      }),
    );
}

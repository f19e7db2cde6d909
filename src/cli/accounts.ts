import type { Command } from 'commander';
import { keepFiltered, withFilterOption } from './filters.js';
import {
  accountDoc,
  accountFilterDoc,
  accountJson,
  createAccount,
  deleteAccount,
  getAccount,
  listAccounts,
  listChildren,
  listDescendants,
  updateAccount,
} from '../modules/accounts/service.js';
import { moveAccount } from '../modules/accounts/move.js';
import type { Core } from '../core.js';
import type { Account } from '../modules/accounts/service.js';
import { masterAccount } from '../modules/accounts/service.js';
import { CliError, fieldsToChange, emit, table, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

/** An account and everything below it, as `tel accounts tree --json` prints it. */
interface TreeNode {
  id: string;
  name: string;
  realm: string;
  reseller: boolean;
  children: TreeNode[];
}

/** The subtree of an account, read in one pass over its descendants. */
function subtree(core: Core, root: Account): TreeNode {
  const nodes = new Map<string, TreeNode>();
  const node = (a: Account): TreeNode => ({ id: a.id, name: a.name, realm: a.realm, reseller: a.reseller, children: [] });
  const top = node(root);
  nodes.set(root.id, top);
  // read by name: a parent may come after its children, so each is linked once all are made
  const below = listDescendants(core, root.id);
  for (const a of below) nodes.set(a.id, node(a));
  for (const a of below) nodes.get(a.parentId ?? '')?.children.push(nodes.get(a.id)!);
  return top;
}

/** The subtree drawn with box-drawing branches, one account a line. */
function drawTree(root: TreeNode): string {
  const lines = [`${root.name} (${root.id})${root.reseller ? ' [reseller]' : ''}`];
  const walk = (n: TreeNode, prefix: string) =>
    n.children.forEach((c, i) => {
      const last = i === n.children.length - 1;
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${c.name} (${c.id})${c.reseller ? ' [reseller]' : ''}`);
      walk(c, prefix + (last ? '   ' : '│  '));
    });
  walk(root, '');
  return lines.join('\n');
}

/** `tel accounts …`: the account tree, offline on the database file. */
export function defineAccounts(accounts: Command, io: CliIo): void {
  accounts.addHelpText(
    'after',
    '\nExamples:\n  $ tel accounts list\n  $ tel accounts create "Customer A" --parent <master_id>\n  $ tel accounts tree\n  $ tel accounts move <id> --to <parent_id>\n  $ tel accounts show <id> --json',
  );

  withFilterOption(withGlobals(accounts.command('list')))
    .description('every account with its parent, or the descendants of one')
    .option('--under <account>', 'only the descendants of this account')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel accounts list\n  $ tel accounts list --under <id> --json     the sub-accounts of one account, as JSON\n  $ tel accounts list --filter is_reseller=true',
    )
    .action(async (opts: { under?: string; filter?: string[] }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const all = opts.under ? listDescendants(core, existingAccount(core, opts.under, '--under')) : listAccounts(core);
        const rows = keepFiltered(opts.filter, all, (a) => accountFilterDoc(core, a)).map((a) => ({
          id: a.id,
          name: a.name,
          realm: a.realm,
          parent_id: a.parentId,
          superduper_admin: a.superduper,
        }));
        emit(io, g, rows, () => table(rows, ['id', 'name', 'realm', 'parent_id']));
      }),
    );

  withGlobals(accounts.command('show <account>'))
    .description('one account, with its children')
    .addHelpText('after', '\nExamples:\n  $ tel accounts show <id>\n  $ tel accounts show <id> --json')
    .action(async (id: string, _o: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const a = getAccount(core, existingAccount(core, id, 'ACCOUNT'));
        const value = { ...accountJson(core, a), tree: a.tree, children: listChildren(core, a.id).map((c) => c.id) };
        emit(io, g, value, () =>
          [`${a.name} (${a.id})`, `realm: ${a.realm}`, `parents: ${a.tree.join(' > ') || '(root)'}`, `children: ${value.children.length}`].join('\n'),
        );
      }),
    );

  withGlobals(accounts.command('create <name>'))
    .description('create an account under a parent')
    .requiredOption('--parent <account>', 'the parent account')
    .option('--realm <realm>', 'SIP realm (default: generated)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel accounts create "Customer A" --parent <master_id>\n  $ tel accounts create "Customer B" --parent <id> --realm b.lab.example --json',
    )
    .action(async (name: string, opts: { parent: string; realm?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const parent = getAccount(core, existingAccount(core, opts.parent, '--parent'));
        const a = createAccount(core, { name, ...(opts.realm ? { realm: opts.realm } : {}) }, { parentId: parent.id });
        emit(io, g, accountJson(core, a), () => `Created account ${a.name} (${a.id}) under ${parent.name} (${parent.id}).`);
      }),
    );

  withGlobals(accounts.command('update <account>'))
    .description("change an account's name, realm or other fields (the fields given; the others are kept)")
    .option('--name <name>', 'its new name')
    .option('--realm <realm>', 'its new SIP realm')
    .option('--data <json|@file>', 'fields of the account document as a JSON object, merged into it')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel accounts update "Customer A" --name "Customer Alpha"\n  $ tel accounts update <id> --realm a.lab.example --json\n  $ tel accounts update <id> --data \'{"timezone":"Europe/London"}\'',
    )
    .action(async (id: string, opts: { name?: string; realm?: string; data?: string }, cmd: Command) => {
      const fields = await fieldsToChange(opts.data, { name: opts.name, realm: opts.realm });
      await withCore(cmd, (core, g) => {
        const a = updateAccount(core, existingAccount(core, id, 'ACCOUNT'), fields, 'merge');
        emit(io, g, accountJson(core, a), () => `Updated account ${a.name} (${a.id}): ${Object.keys(fields).join(', ')}.`);
      });
    });

  withGlobals(accounts.command('tree [account]'))
    .description('an account and every account below it, as a tree (default: from the master account)')
    .addHelpText('after', '\nExamples:\n  $ tel accounts tree\n  $ tel accounts tree <id> --json     nested {id, name, realm, reseller, children}')
    .action(async (id: string | undefined, _o: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const root = id ? getAccount(core, existingAccount(core, id, 'ACCOUNT')) : masterAccount(core);
        if (!root) throw new CliError('The database has no master account yet: run `tel init`.');
        const tree = subtree(core, root);
        emit(io, g, tree, () => drawTree(tree));
      }),
    );

  withGlobals(accounts.command('move <account>'))
    .description('move an account, with its sub-accounts, under another parent (as POST /v2/accounts/{id}/move)')
    .requiredOption('--to <account>', 'the new parent account')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel accounts move <id> --to <new_parent_id>\n  $ tel accounts move <id> --to <new_parent_id> --json\n\nThe master account stays where it is; an account cannot move under itself or its sub-accounts.',
    )
    .action(async (id: string, opts: { to: string }, cmd: Command) =>
      withCore(cmd, async (core, g) => {
        const to = getAccount(core, existingAccount(core, opts.to, '--to'));
        const a = await moveAccount(core, undefined, existingAccount(core, id, 'ACCOUNT'), to.id);
        emit(io, g, { ...accountJson(core, a), tree: a.tree }, () => `Moved ${a.name} (${a.id}) under ${to.name} (${to.id}).`);
      }),
    );

  withGlobals(accounts.command('delete <account>'))
    .description('delete an account that has no sub-accounts, with its documents and tokens')
    .addHelpText('after', '\nExample:\n  $ tel accounts delete <id>')
    .action(async (id: string, _o: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const a = deleteAccount(core, existingAccount(core, id, 'ACCOUNT'));
        emit(io, g, { ...accountDoc(a), _read_only: { deleted: true } }, () => `Deleted account ${a.name} (${a.id}).`);
      }),
    );
}

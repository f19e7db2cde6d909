import type { Command } from 'commander';
import { getAccount } from '../modules/accounts/service.js';
import { issueToken, listTokens, METHOD_API_AUTH, METHOD_USER_AUTH, revokeToken } from '../modules/auth/service.js';
import { getUser } from '../modules/users/service.js';
import { validateEndpointRules, type EndpointRules } from '../restrictions/index.js';
import { describeRule } from '../errors.js';
import { CliError, emit, jsonArg, table, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

/** A `--restrictions` value checked as endpoint rules before it is stored on a token; refused (exit 2) with what is wrong. */
function tokenRules(value: unknown): EndpointRules {
  const errs = validateEndpointRules(value);
  if (!errs) return value as EndpointRules;
  const detail = Object.entries(errs).map(([field, rules]) => {
    const [rule, d] = Object.entries(rules)[0];
    return `${field}: ${describeRule(rule, d)}`;
  });
  throw new CliError(`--restrictions is not valid: ${detail.join('; ')}.`, 2);
}

/** `tel tokens …`: issue, list and revoke tokens offline. */
export function defineTokens(tokens: Command, io: CliIo): void {
  tokens.addHelpText(
    'after',
    `\nExamples:\n  $ tel tokens create --account <id>                      an API-key style token\n  $ tel tokens create --account <id> --user <user_id>    a user's token\n  $ tel tokens create --account <id> --restrictions '{"_":[{"rules":{"#":["GET"]}}]}'\n  $ tel tokens revoke <token>`,
  );

  withGlobals(tokens.command('create'))
    .description('issue a token for an account (and user); prints it')
    .requiredOption('--account <account>', 'account the token acts for')
    .option('--user <id>', 'user the token belongs to (method cb_user_auth)')
    .option('--restrictions <json|@file>', 'endpoint rules to copy into the token instead of the templates')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel tokens create --account <id>                       an API-key style token\n  $ tel tokens create --account <id> --user <user_id>      a user's token\n  $ tel tokens create --account <id> --restrictions '{"_":[{"rules":{"#":["GET"]}}]}' --json`,
    )
    .action(async (opts: { account: string; user?: string; restrictions?: string }, cmd: Command) => {
      const rules = opts.restrictions ? await jsonArg(opts.restrictions, '--restrictions') : undefined;
      await withCore(cmd, (core, g) => {
        const account = getAccount(core, existingAccount(core, opts.account));
        if (opts.user) getUser(core, account.id, opts.user);
        if (rules !== undefined && (typeof rules !== 'object' || rules === null || Array.isArray(rules))) {
          throw new CliError('--restrictions must be a JSON object of endpoint rules.', 2);
        }
        if (rules !== undefined && account.superduper) {
          throw new CliError('Super-duper admin tokens are never restricted: give --restrictions to a token of another account.');
        }
        const restrictions = rules === undefined ? undefined : tokenRules(rules);
        const token = issueToken(core, {
          account,
          ownerId: opts.user,
          method: opts.user ? METHOD_USER_AUTH : METHOD_API_AUTH,
          restrictions,
        });
        emit(io, g, { token, account_id: account.id, owner_id: opts.user ?? null }, () => token);
      });
    });

  withGlobals(tokens.command('list'))
    .description('tokens, newest first, by id (the SHA-256 of the token: tokens themselves are not kept)')
    .option('--account <account>', 'only this account')
    .addHelpText('after', '\nExamples:\n  $ tel tokens list\n  $ tel tokens list --account <id> --json\n\nA token is shown once, when issued; the database keeps only its hash, the id listed here.')
    .action(async (opts: { account?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const rows = listTokens(core, opts.account && existingAccount(core, opts.account)).map((t) => ({
          ...t,
          created: new Date(t.created).toISOString(),
          modified: new Date(t.modified).toISOString(),
        }));
        emit(io, g, rows, () =>
          table(rows, ['id', 'account_id', 'method', 'restricted', 'modified']),
        );
      }),
    );

  withGlobals(tokens.command('revoke <token>'))
    .description('revoke a token for good (the token, or its id from tokens list)')
    .addHelpText('after', '\nExamples:\n  $ tel tokens revoke <token>\n  $ tel tokens revoke <id>       an id shown by tel tokens list')
    .action(async (token: string, _o: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        if (!revokeToken(core, token)) throw new CliError('No such token.');
        emit(io, g, { revoked: true }, () => 'Token revoked.');
      }),
    );
}

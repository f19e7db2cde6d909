import type { Command } from 'commander';
import { endpointNames } from '../core.js';
import { apiRouter } from '../http/api-router.js';
import { parsePath, type ParsedPath } from '../api-path.js';
import { requiresToken } from '../http/router.js';
import { findAccount, getAccount } from '../modules/accounts/service.js';
import { METHOD_API_AUTH, METHOD_USER_AUTH, tokenExpirySeconds } from '../modules/auth/service.js';
import {
  chooseTokenRules,
  checkToken,
  deleteTemplate,
  explainVerdict,
  getTemplate,
  setTemplate,
  storedTokenRules,
  type RequestVerdict,
  type TokenRuleChoice,
  type TokenRules,
} from '../modules/token-restrictions/service.js';
import { getUser } from '../modules/users/service.js';
import { CliError, emit, jsonArg, parseJsonText, readSource, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

const METHODS = new Set(['GET', 'PUT', 'POST', 'PATCH', 'DELETE']);

/** The URI as the server would see it: a full URL loses its origin, `/v2` is added when no version is given. */
export function normaliseUri(uri: string): string {
  const local = uri.replace(/^https?:\/\/[^/?#]*/i, '');
  const withSlash = local.startsWith('/') ? local : `/${local}`;
  return /^\/+v[12](\/|\?|$)/i.test(withSlash) ? withSlash : `/v2${withSlash}`;
}

/** Parses a URI with the server's parser and endpoint names. */
export function parseUri(uri: string, endpoints: ReadonlySet<string> = endpointNames()): ParsedPath {
  return parsePath(normaliseUri(uri), endpoints);
}

interface TestOptions {
  token?: string;
  account?: string;
  user?: string;
  authMethod?: string;
}

function selectionSentence(choice: TokenRuleChoice, accountId: string): string {
  const level =
    choice.privFrom === 'user' ? `the user's priv_level \`${choice.privLevel}\`` : `\`${choice.privLevel}\` (no user: default_priv_level)`;
  if (choice.superduper) return `Template: account ${accountId} is a super-duper admin; its tokens are never restricted.`;
  if (!choice.source) return `Template: neither the account template nor the system template has an entry for the method; no rules (level ${level}).`;
  const where = choice.source === 'account' ? `the account template of ${accountId}` : 'the system template (api.token_restrictions)';
  if (!choice.rules) return `Template: ${where} has method key \`${choice.methodKey}\` but no entry for level ${level} or \`_\`; no rules.`;
  return `Template: ${where}, method key \`${choice.methodKey}\`, level key \`${choice.privKey}\` for level ${level}.`;
}

function tokenSentence(t: TokenRules & { ownerId?: string; method: string; modified: number }): string {
  const who = t.ownerId ? `user ${t.ownerId} of account ${t.accountId}` : `account ${t.accountId}`;
  const what = t.superduper
    ? 'a super-duper admin token, never restricted'
    : t.rules || t.login
      ? `rules copied at login${t.login ? ' plus restrictions from the login payload' : ''} (later template changes do not apply)`
      : 'no restrictions';
  return `Token: ${t.method} for ${who}; ${what}.`;
}

async function runTest(io: CliIo, cmd: Command, uri: string, rawMethod: string, opts: TestOptions): Promise<void> {
  const method = rawMethod.toUpperCase();
  if (!METHODS.has(method)) throw new CliError(`The method must be one of ${[...METHODS].join(', ')}.`, 2);
  if (Boolean(opts.token) === Boolean(opts.account)) throw new CliError('Give either --token or --account.', 2);
  if (opts.token && (opts.user || opts.authMethod)) throw new CliError('--user and --auth-method go with --account, not --token.', 2);
  await withCore(cmd, (core, g) => {
    const path = parseUri(uri, core.endpoints);
    // the routes say whether the path needs a token at all (logins and public listings do not)
    const match = path.invalid || !path.version ? undefined : apiRouter().match(method, path.segments);
    const needsToken = requiresToken(match);
    const lines: string[] = [];
    let holder: TokenRules;
    let subject: Record<string, unknown>;
    if (opts.token) {
      const stored = storedTokenRules(core, opts.token);
      if (!stored) throw new CliError('No such token.');
      const idleSeconds = (Date.now() - stored.modified) / 1000;
      if (needsToken && idleSeconds > tokenExpirySeconds(core)) {
        throw new CliError(`The token has expired (unused for longer than token_expiry_s, ${tokenExpirySeconds(core)} s); the server answers 401.`);
      }
      holder = stored;
      lines.push(tokenSentence(stored));
      subject = { token: true, account_id: stored.accountId, owner_id: stored.ownerId ?? null, method: stored.method, superduper: stored.superduper };
    } else {
      const account = getAccount(core, existingAccount(core, opts.account!));
      if (opts.user) getUser(core, account.id, opts.user);
      const authMethod = opts.authMethod ?? (opts.user ? METHOD_USER_AUTH : METHOD_API_AUTH);
      const choice = chooseTokenRules(core, { account, ownerId: opts.user, method: authMethod });
      holder = { accountId: account.id, superduper: account.superduper, rules: choice.rules };
      lines.push(selectionSentence(choice, account.id));
      subject = {
        token: false,
        account_id: account.id,
        owner_id: opts.user ?? null,
        method: authMethod,
        superduper: account.superduper,
        selection: {
          source: choice.source ?? null,
          method_key: choice.methodKey ?? null,
          priv_level: choice.privLevel,
          priv_level_from: choice.privFrom,
          priv_key: choice.privKey ?? null,
          rules: choice.rules ?? null,
        },
      };
    }
    // The same gate as the server's: a path that needs no token skips every token check.
    const verdict: RequestVerdict = needsToken ? checkToken(core, holder, method, path) : { allowed: true, noToken: true };
    lines.push(...explainVerdict(verdict));
    // Not part of the restrictions, but a dry run that hid it would mislead.
    const target = path.accountId;
    const reachable =
      !needsToken || !target || holder.superduper || target === holder.accountId || (findAccount(core, target)?.tree.includes(holder.accountId) ?? false);
    if (!reachable) {
      lines.push(`Note: account ${target} is not the token's account or one of its descendants (or does not exist); the server refuses it with a 403 whatever the restrictions say.`);
    }
    const result = {
      allowed: verdict.allowed,
      failed_step: verdict.failedStep ?? null,
      request: {
        method,
        uri: normaliseUri(uri),
        endpoint: path.endpoint ?? null,
        arguments: path.args,
        account_id: path.accountId ?? null,
        segments: path.segments,
        ...(path.invalid ? { invalid: path.invalid } : {}),
      },
      subject,
      account_access: reachable,
      template: verdict.template ?? null,
      login: verdict.login ?? null,
      explanation: lines,
    };
    emit(io, g, result, () => [`${verdict.allowed ? 'allowed' : 'denied'}: ${method} ${normaliseUri(uri)}`, ...lines.map((l) => `  ${l}`)].join('\n'));
    if (!verdict.allowed) {
      throw new CliError(`Denied by the token restrictions at the ${verdict.failedStep} step.`, 1);
    }
  });
}

async function readTemplateArg(io: CliIo, value: string): Promise<unknown> {
  if (value === '-') return parseJsonText(await readSource(io, '-'), 'The template on stdin is not valid JSON.', 'The template on stdin');
  return jsonArg(value, 'the template');
}

/** `tel restrictions …`: account templates and the dry run of enforcement. */
export function defineRestrictions(group: Command, io: CliIo): void {
  group.addHelpText(
    'after',
    `
Examples:
  $ tel restrictions get --account <id>
  $ tel restrictions set --account <id> '{"cb_user_auth":{"user":{"devices":[{"allowed_accounts":["{AUTH_ACCOUNT_ID}"],"rules":{"#":["GET"]}}]}}}'
  $ tel restrictions set --account <id> @template.json
  $ tel restrictions delete --account <id>
  $ tel restrictions test /v2/accounts/<id>/devices GET --account <id> --user <user_id>
  $ tel restrictions test accounts/<id>/devices/<dev>/sync POST --token <token> --json

The template may also be given as {"restrictions": {...}}. test exits 0 when allowed, 1 when denied.`,
  );

  withGlobals(group.command('get'))
    .description("an account's restriction template")
    .requiredOption('--account <account>', 'the account')
    .addHelpText('after', '\nExamples:\n  $ tel restrictions get --account <id>\n  $ tel restrictions get --account <id> --json')
    .action(async (opts: { account: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const restrictions = getTemplate(core, existingAccount(core, opts.account));
        emit(io, g, { restrictions }, () => JSON.stringify(restrictions, null, 2));
      }),
    );

  withGlobals(group.command('set <template>'))
    .description("replace an account's restriction template (JSON, @file, or - for stdin); validated")
    .requiredOption('--account <account>', 'the account')
    .addHelpText(
      'after',
      `
Examples:
  $ tel restrictions set --account <id> '{"cb_user_auth":{"user":{"devices":[{"allowed_accounts":["{AUTH_ACCOUNT_ID}"],"rules":{"#":["GET"]}}]}}}'
  $ tel restrictions set --account <id> @template.json
  $ tel restrictions get --account <other_id> --json | tel restrictions set --account <id> -

Tokens already issued keep the rules they were given; new ones get the new template.`,
    )
    .action(async (value: string, opts: { account: string }, cmd: Command) => {
      const parsed = await readTemplateArg(io, value);
      const wrapped =
        parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length === 1 && 'restrictions' in parsed
          ? parsed
          : { restrictions: parsed };
      await withCore(cmd, (core, g) => {
        const restrictions = setTemplate(core, existingAccount(core, opts.account), wrapped);
        emit(io, g, { restrictions }, () => `Saved the restriction template of account ${opts.account}; tokens issued from now on use it.`);
      });
    });

  withGlobals(group.command('delete'))
    .description("remove an account's restriction template")
    .requiredOption('--account <account>', 'the account')
    .addHelpText('after', '\nExample:\n  $ tel restrictions delete --account <id>')
    .action(async (opts: { account: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const restrictions = deleteTemplate(core, existingAccount(core, opts.account));
        emit(io, g, { restrictions, _read_only: { deleted: true } }, () => `Removed the restriction template of account ${opts.account}.`);
      }),
    );

  withGlobals(group.command('test <uri> <method>'))
    .description('would this request pass the token restrictions? says which rule decided and why')
    .option('--token <token>', 'a stored token')
    .option('--account <account>', 'the rules a new token of this account would get')
    .option('--user <id>', 'with --account: as this user (method cb_user_auth)')
    .option('--auth-method <name>', 'with --account: the authentication method (cb_user_auth, cb_api_auth, …)')
    .addHelpText(
      'after',
      `
Examples:
  $ tel restrictions test /v2/accounts/<id>/devices GET --account <id> --user <user_id>
  $ tel restrictions test accounts/<id>/devices/<dev>/sync POST --token <token> --json

Exit 0 when allowed, 1 when denied. Without --auth-method, --account means cb_user_auth
with --user, else cb_api_auth.`,
    )
    .action(async (uri: string, method: string, opts: TestOptions, cmd: Command) => runTest(io, cmd, uri, method, opts));
}

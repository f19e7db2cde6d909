import { Option, type Command } from 'commander';
import { attemptFilterDoc, attemptJson, type AttemptRow } from '../delivery/attempts.js';
import { everyPage, filledPageNow, type CompoundKey, type PageQuery } from '../store/pages.js';
import { keepFiltered, rowFilterOfOption, withFilterOption } from './filters.js';
import { jsonArrayPieces } from '../util/json.js';
import { breakerOf } from '../delivery/breakers.js';
import { HOOK_IDS } from '../modules/webhooks/hook-types.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  hookFilterDoc,
  hookJson,
  hookSummary,
  listHookAttempts,
  listWebhooks,
  reenableAutoDisabled,
  replayDeliveries,
  resendAttempt,
  rotateSecret,
  setWebhookEnabled,
  updateWebhook,
} from '../modules/webhooks/service.js';
import { gregorianWindow, parseDuration, parseInstant } from '../util/time.js';
import { CliError, emit, emitJsonPieces, emitTableChunks, fieldsToChange, jsonArg, jsonObjectArg, table, wholeNumber, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

/** The options `create` and `update` share: fields of the hook document. */
interface HookOptions {
  name?: string;
  uri?: string;
  hook?: string;
  verb?: string;
  format?: string;
  retries?: number;
  modifiers?: string;
  customData?: string;
  rateLimit?: string;
  data?: string;
}

interface CreateOptions extends HookOptions {
  account: string;
  includeSubaccounts?: boolean;
  internalLegs: boolean;
  secret?: string;
  disabled?: boolean;
}

/** Adds the options of a hook's fields `create` and `update` share. */
function hookFieldOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'friendly name')
    .option('--uri <uri>', 'absolute http(s) URI to call')
    .addOption(new Option('--hook <type>', 'the event to send').choices(HOOK_IDS))
    .addOption(new Option('--verb <verb>', 'HTTP method').choices(['get', 'post', 'put']))
    .addOption(new Option('--format <format>', 'body format (post and put)').choices(['form-data', 'json']))
    .option('--retries <n>', 'extra tries after a failure (0..4)', wholeNumber)
    .option('--modifiers <json>', 'payload pairs that must match, e.g. {"call_direction":"inbound"}')
    .option('--custom-data <json>', 'fields merged into the payload')
    .option('--rate-limit <per_s>', 'start at most this many deliveries a second (rate_limit_per_s)');
}

/** The hook fields the shared options give, by their document names. */
async function hookFields(opts: HookOptions): Promise<Record<string, unknown>> {
  return {
    name: opts.name,
    uri: opts.uri,
    hook: opts.hook,
    http_verb: opts.verb,
    format: opts.format,
    retries: opts.retries,
    rate_limit_per_s: opts.rateLimit,
    modifiers: opts.modifiers === undefined ? undefined : await jsonArg(opts.modifiers, '--modifiers'),
    custom_data: opts.customData === undefined ? undefined : await jsonArg(opts.customData, '--custom-data'),
  };
}

async function createDoc(opts: CreateOptions): Promise<Record<string, unknown>> {
  const out = opts.data ? await jsonObjectArg(opts.data, '--data') : {};
  for (const [k, v] of Object.entries({ ...(await hookFields(opts)), secret: opts.secret })) if (v !== undefined) out[k] = v;
  if (opts.includeSubaccounts) out.include_subaccounts = true;
  if (!opts.internalLegs) out.include_internal_legs = false;
  if (opts.disabled) out.enabled = false;
  return out;
}

/** A hook's breaker in one word for listings: `closed`, `open (7 failures)` or `-` before any try. */
function breakerText(core: Parameters<typeof breakerOf>[0], hookId: string): string {
  const b = breakerOf(core, hookId);
  if (!b) return '-';
  return b.state === 'open' ? `open (${b.failures} failures)` : 'closed';
}

/** An instant option (`--since 2h`, an ISO date, Gregorian or unix seconds) as unix ms; a usage error when unreadable. */
function instantOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const at = parseInstant(value);
  if (at === undefined) throw new CliError(`${name} must be a duration ago (2h), an ISO 8601 date, or Gregorian or unix seconds, not ${value}.`, 2);
  return at;
}

function gregorianOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} must be Gregorian seconds, not ${value}.`, 2);
  return n;
}

/** `tel webhooks …`: account webhooks and their attempt log, offline on the database file. */
export function defineWebhooks(webhooks: Command, io: CliIo): void {
  webhooks.addHelpText(
    'after',
    `\nExamples:\n  $ tel webhooks create --account <id> --name "CRM" --uri https://crm.example.com/hook --hook channel_create --format json\n  $ tel webhooks list --account <id>\n  $ tel webhooks attempts --account <id> --hook <hook_id>\n  $ tel webhooks reenable --account <id> --descendants\n\nHook types: ${HOOK_IDS.join(', ')}. A running \`tel serve\` on the same file sends the deliveries.`,
  );

  withFilterOption(withGlobals(webhooks.command('list')))
    .description("an account's webhooks, with the reason of any automatic disable and the state of their circuit breaker")
    .requiredOption('--account <account>', 'the account')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel webhooks list --account <id>\n  $ tel webhooks list --account <id> --json\n  $ tel webhooks list --account <id> --filter hook=channel_create --filter enabled=true\n\nbreaker: closed (deliveries flow), open (the endpoint kept failing: probed one try at a time\nuntil it answers; its other deliveries wait with their retry schedule), - (nothing sent yet).',
    )
    .action(async (opts: { account: string; filter?: string[] }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const hooks = keepFiltered(opts.filter, listWebhooks(core, existingAccount(core, opts.account)), (h) => hookFilterDoc(h, true));
        const rows = hooks.map((h) => ({ ...hookSummary(h), breaker: breakerText(core, h.id) }));
        emit(io, g, rows, () => table(rows, ['id', 'name', 'hook', 'uri', 'enabled', 'breaker', 'disable_reason']));
      }),
    );

  withGlobals(webhooks.command('show <hook_id>'))
    .description('one webhook, whole, with the state of its circuit breaker')
    .requiredOption('--account <account>', 'the account')
    .addHelpText('after', '\nExample:\n  $ tel webhooks show <hook_id> --account <id>')
    .action(async (id: string, opts: { account: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const hook = getWebhook(core, existingAccount(core, opts.account), id);
        const b = breakerOf(core, hook.id);
        const breaker = b ? { state: b.state, consecutive_failures: b.failures, since: new Date(b.changed).toISOString() } : { state: 'closed' };
        const grace = hook.previousSecret && hook.previousSecret.until > Date.now() ? { previous_secret_signs_until: new Date(hook.previousSecret.until).toISOString() } : {};
        emit(io, { ...g, json: true }, { ...hookJson(hook), ...grace, breaker });
      }),
    );

  hookFieldOptions(withGlobals(webhooks.command('create')).description('create a webhook (defaults as the API: post, form-data, 2 retries, enabled)'))
    .requiredOption('--account <account>', 'the account')
    .option('--include-subaccounts', 'fire for sub-account events too')
    .option('--no-internal-legs', 'skip loopback call legs')
    .option('--secret <whsec>', 'sign deliveries (Standard Webhooks): whsec_ + base64 of 24..64 bytes')
    .option('--disabled', 'create it turned off')
    .option('--data <json|@file>', 'the whole webhook document (options override its fields)')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel webhooks create --account <id> --name CRM --uri https://crm.example.com/calls --hook channel_destroy --format json\n  $ tel webhooks create --account <id> --name Docs --uri http://127.0.0.1:9000/obj --hook object --custom-data '{"type":"device","action":"doc_created"}'\n  $ tel webhooks create --account <id> --data @hook.json`,
    )
    .action(async (opts: CreateOptions, cmd: Command) => {
      const doc = await createDoc(opts);
      await withCore(cmd, (core, g) => {
        const h = createWebhook(core, existingAccount(core, opts.account), doc);
        emit(io, g, hookJson(h), () => `Created webhook ${String(h.doc.name)} (${h.id}): ${String(h.doc.hook)} → ${String(h.doc.uri)}.`);
      });
    });

  hookFieldOptions(withGlobals(webhooks.command('update <hook_id>')).description("change a webhook's name, URI or other fields (the fields given; the others are kept)"))
    .requiredOption('--account <account>', 'the account')
    .option('--data <json|@file>', 'fields of the webhook document as a JSON object, merged into it (options override its fields)')
    .addHelpText(
      'after',
      `\nExamples:\n  $ tel webhooks update <hook_id> --account <id> --name "CRM staging" --uri http://127.0.0.1:9001/calls\n  $ tel webhooks update <hook_id> --account "Customer A" --retries 0 --json\n  $ tel webhooks update <hook_id> --account <id> --data '{"include_subaccounts":true}'\n\nA new secret: tel webhooks rotate-secret; on or off: enable, disable.`,
    )
    .action(async (id: string, opts: HookOptions & { account: string }, cmd: Command) => {
      const fields = await fieldsToChange(opts.data, await hookFields(opts));
      await withCore(cmd, (core, g) => {
        const h = updateWebhook(core, existingAccount(core, opts.account), id, fields, 'merge');
        emit(io, g, hookJson(h), () => `Updated webhook ${String(h.doc.name)} (${h.id}): ${Object.keys(fields).join(', ')}.`);
      });
    });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    withGlobals(webhooks.command(`${name} <hook_id>`))
      .description(enabled ? 'turn a webhook on (clears an automatic disable and its failure count)' : 'turn a webhook off by hand')
      .requiredOption('--account <account>', 'the account')
      .addHelpText('after', `\nExample:\n  $ tel webhooks ${name} <hook_id> --account <id>`)
      .action(async (id: string, opts: { account: string }, cmd: Command) =>
        withCore(cmd, (core, g) => {
          const h = setWebhookEnabled(core, existingAccount(core, opts.account), id, enabled);
          emit(io, g, hookJson(h), () => `Webhook ${String(h.doc.name)} (${h.id}) is ${enabled ? 'enabled' : 'disabled'}.`);
        }),
      );
  }

  withGlobals(webhooks.command('delete <hook_id>'))
    .description('delete a webhook')
    .requiredOption('--account <account>', 'the account')
    .addHelpText('after', '\nExample:\n  $ tel webhooks delete <hook_id> --account <id>')
    .action(async (id: string, opts: { account: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const h = deleteWebhook(core, existingAccount(core, opts.account), id);
        emit(io, g, { ...hookJson(h), _read_only: { deleted: true } }, () => `Deleted webhook ${String(h.doc.name)} (${h.id}).`);
      }),
    );

  withGlobals(webhooks.command('reenable'))
    .description('re-enable the automatically disabled webhooks (hand-disabled ones stay off)')
    .requiredOption('--account <account>', 'the account')
    .option('--descendants', 'also in every descendant account')
    .addHelpText('after', '\nExamples:\n  $ tel webhooks reenable --account <id>\n  $ tel webhooks reenable --account <reseller_id> --descendants')
    .action(async (opts: { account: string; descendants?: boolean }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const n = reenableAutoDisabled(core, existingAccount(core, opts.account), opts.descendants === true);
        emit(io, g, { data: 'hooks updated', reenabled: n }, () => `Re-enabled ${n} webhook${n === 1 ? '' : 's'}.`);
      }),
    );

  withFilterOption(withGlobals(webhooks.command('attempts')))
    .description('the attempt log, newest first: one line per HTTP try')
    .requiredOption('--account <account>', 'the account')
    .option('--hook <id>', 'only this webhook')
    .option('--limit <n>', 'at most this many (0: all)', '50')
    .option('--from <gregorian>', 'created at or after (Gregorian seconds)')
    .option('--to <gregorian>', 'created at or before (Gregorian seconds)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel webhooks attempts --account <id>\n  $ tel webhooks attempts --account <id> --hook <hook_id> --limit 10 --json\n  $ tel webhooks attempts --account <id> --filter result=failure',
    )
    .action(async (opts: { account: string; hook?: string; limit: string; from?: string; to?: string; filter?: string[] }, cmd: Command) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 0) throw new CliError(`--limit must be a whole number, not ${opts.limit}.`, 2);
      const from = gregorianOption(opts.from, '--from');
      const to = gregorianOption(opts.to, '--to');
      await withCore(cmd, async (core, g) => {
        const accountId = existingAccount(core, opts.account);
        const window = gregorianWindow(from, to);
        const read = (q: PageQuery<CompoundKey>) => listHookAttempts(core, accountId, { hookId: opts.hook, ...window, ...q });
        const filter = rowFilterOfOption(opts.filter, (r: AttemptRow) => attemptFilterDoc(r, attemptJson(r)));
        // --limit 0: every attempt, read and printed a chunk at a time
        const chunks =
          limit === 0 ? everyPage(read, { chunkRows: 100, filter })
          : filter ? [filledPageNow(read, { pageSize: limit, filter }).items]
          : [read({ pageSize: limit }).items];
        if (g.json) await emitJsonPieces(io, jsonArrayPieces(chunks, attemptJson));
        else await emitTableChunks(io, mapChunks(chunks, attemptLine), ATTEMPT_COLUMNS);
      });
    });

  withGlobals(webhooks.command('replay'))
    .description('send recorded deliveries again, with their original event ids (an event counts once, as its latest delivery)')
    .requiredOption('--account <account>', 'the account')
    .option('--hook <id>', 'only this webhook')
    .requiredOption('--since <time>', 'deliveries made since: a duration ago (2h), an ISO 8601 date, or Gregorian or unix seconds')
    .option('--until <time>', 'and made until (same forms; default now)')
    .option('--failed-only', 'only those that never reached the endpoint (failed for good, or dropped while the hook was off)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel webhooks replay --account <id> --since 2h --failed-only\n  $ tel webhooks replay --account <id> --hook <hook_id> --since 2026-05-01T09:00:00Z --until 2026-05-01T10:00:00Z\n\nDeliveries still on their way, and those of disabled or deleted hooks, are left out.\nA running `tel serve` on the same file sends them (paced and signed as the hook is now).',
    )
    .action(async (opts: { account: string; hook?: string; since: string; until?: string; failedOnly?: boolean }, cmd: Command) => {
      const since = instantOption(opts.since, '--since')!;
      const until = instantOption(opts.until, '--until');
      await withCore(cmd, (core, g) => {
        const r = replayDeliveries(core, existingAccount(core, opts.account), { hookId: opts.hook, since, until, failedOnly: opts.failedOnly === true });
        const skipped = r.skipped ? ` (${r.skipped} left out: their hook is disabled or gone)` : '';
        const what = r.replayed === 1 ? '1 delivery' : `${r.replayed} deliveries`;
        emit(io, g, r, () => `Queued ${what} again${skipped}${r.replayed ? `; a running \`tel serve\` sends ${r.replayed === 1 ? 'it' : 'them'}` : ''}.`);
      });
    });

  withGlobals(webhooks.command('rotate-secret <hook_id>'))
    .description('give a webhook a new signing secret; the old one keeps signing beside it until the grace ends')
    .option('--grace <duration>', 'how long the old secret keeps signing: 30m, 24h, 7d, 0 (default: secret_rotation_grace_s, 24h)')
    .option('--secret <whsec>', 'the new secret (default: a new random one)')
    .option('--account <account>', 'refuse unless the hook belongs to this account')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel webhooks rotate-secret <hook_id>\n  $ tel webhooks rotate-secret <hook_id> --grace 1h --json\n\nWhile the grace lasts every delivery carries two signatures in webhook-signature\n(`v1,<new> v1,<old>`, as Standard Webhooks allows): consumers switch secrets at their pace.',
    )
    .action(async (id: string, opts: { grace?: string; secret?: string; account?: string }, cmd: Command) => {
      const graceMs = opts.grace === undefined ? undefined : parseDuration(opts.grace);
      if (opts.grace !== undefined && graceMs === undefined) throw new CliError(`--grace must be a duration such as 30m, 24h or 0, not ${opts.grace}.`, 2);
      await withCore(cmd, (core, g) => {
        const hook = rotateSecret(core, id, { accountId: opts.account && existingAccount(core, opts.account), graceMs, secret: opts.secret });
        const until = hook.previousSecret ? new Date(hook.previousSecret.until).toISOString() : null;
        emit(io, g, { ...hookJson(hook), previous_secret_signs_until: until }, () =>
          [
            `New secret of webhook ${String(hook.doc.name)} (${hook.id}): ${String(hook.doc.secret)}`,
            until ? `The old secret keeps signing beside it until ${until}.` : 'The old secret no longer signs.',
          ].join('\n'),
        );
      });
    });

  withGlobals(webhooks.command('resend <attempt_id>'))
    .description('send a recorded delivery again (same body and event id, the hook\'s retries)')
    .option('--account <account>', 'refuse unless the attempt belongs to this account')
    .addHelpText('after', '\nExamples:\n  $ tel webhooks attempts --account <id>          find the attempt id\n  $ tel webhooks resend 1234')
    .action(async (attemptId: string, opts: { account?: string }, cmd: Command) => {
      const id = Number(attemptId);
      if (!Number.isInteger(id) || id <= 0) throw new CliError(`The attempt id is a whole number, not ${attemptId}.`, 2);
      await withCore(cmd, (core, g) => {
        const deliveryId = resendAttempt(core, id, opts.account && existingAccount(core, opts.account));
        emit(io, g, { delivery_id: deliveryId, attempt_id: id }, () => `Queued delivery ${deliveryId}; a running \`tel serve\` sends it.`);
      });
    });
}

const ATTEMPT_COLUMNS = ['id', 'time', 'hook', 'event', 'result', 'status', 'ms', 'retries_left', 'error'];

/** An attempt as a line of `tel webhooks attempts`. */
function attemptLine(r: AttemptRow): Record<string, unknown> {
  return {
    id: r.id,
    time: new Date(r.created).toISOString().slice(0, 19).replace('T', ' '),
    hook: r.source_name || r.source_id,
    event: r.event_name,
    result: r.result,
    status: r.http_status ?? '',
    ms: r.latency_ms,
    retries_left: r.result === 'failure' ? r.retries_left : '',
    error: r.client_error ?? (r.result === 'failure' ? r.reason : ''),
  };
}

function* mapChunks<T, U>(chunks: Iterable<T[]>, fn: (row: T) => U): Generator<U[]> {
  for (const rows of chunks) yield rows.map(fn);
}

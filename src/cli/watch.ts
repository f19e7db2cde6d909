import { basename } from 'node:path';
import type { Command } from 'commander';
import { getAccount } from '../modules/accounts/service.js';
import { DEFAULT_POLL_MS, WatchFeed } from '../tui/feed.js';
import { openWatchSource, type WatchScope } from '../tui/sqlite-source.js';
import { runStream } from '../tui/stream.js';
import { CliError, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

interface WatchOptions {
  account?: string;
  descendants?: boolean;
  once?: boolean;
  tail?: string;
  interval: string;
}

const HELP = `
On a terminal: a live screen with three panes, Attempts (webhook deliveries, newest first),
Jobs (bulk number jobs with progress) and Received (what \`tel sink\` got, with the signature
verdict). It follows the database while \`tel serve\`, \`tel sink\` or the CLI writes to it:
new rows appear within a second.

Keys: Tab or 1/2/3 switch panes · ↑↓ or j/k move (PgUp/PgDn, g/G) · Enter detail (the
attempt's request and response, the job's per-number errors, a received request beside
tel's attempt of the same try) · / filter (words such as account:lab hook:crm
result:failure status:5xx event:channel_create; jobs: resource:, status:, id:; received:
verdict:invalid path:/crm method:post) · f failures only · Esc clear filters · r re-enable
the selected attempt's (or request's) auto-disabled hook (the only write tel watch makes) ·
q quit.

Not on a terminal (a pipe or a file): plain lines instead, one per attempt, job change or
received request.
It prints the last --tail existing ones (default 10), then keeps following until killed
(Ctrl-C, SIGTERM, or the reader closing the pipe). --once prints what exists (all of it,
or the last --tail) and exits. --json prints one JSON object a line (on a terminal too).

Examples:
  $ tel watch                                   the live screen on ./tel.db
  $ tel watch --db lab.db --account 4f1c… --descendants
  $ tel watch | grep failure                    failed attempts as they happen
  $ tel watch --once --tail 100                 the last 100 attempts and jobs, then exit
  $ tel watch --json | jq .hookName             machine-readable stream`;

function scopeLabel(file: string, account?: { id: string; name: string }, descendants?: boolean): string {
  const who = account ? `account ${account.name} (${account.id.slice(0, 8)})${descendants ? ' + descendants' : ''}` : 'all accounts';
  return `${basename(file)} · ${who}`;
}

/** `tel watch`: the live view of webhook attempts, number jobs and received requests (or a line stream off a terminal). */
export function defineWatch(watch: Command, io: CliIo): void {
  watch
    .option('--account <account>', 'only this account')
    .option('--descendants', 'with --account: its sub-accounts too')
    .option('--once', 'print what exists as lines and exit (on a terminal too), instead of following')
    .option('--tail <n>', 'how many existing attempts and jobs the lines start with (default 10; --once: all)')
    .option('--interval <ms>', 'how often to look for changes', String(DEFAULT_POLL_MS))
    .addHelpText('after', HELP)
    .action(async (opts: WatchOptions, cmd: Command) => {
      if (opts.descendants && !opts.account) throw new CliError('--descendants needs --account ID.', 2);
      const tail = opts.tail === undefined ? undefined : Number(opts.tail);
      if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0)) throw new CliError(`--tail must be a whole number, not ${opts.tail}.`, 2);
      const pollMs = Number(opts.interval);
      if (!(Number.isInteger(pollMs) && pollMs >= 10 && pollMs <= 60_000)) throw new CliError(`--interval must be 10..60000 ms, not ${opts.interval}.`, 2);
      await withCore(cmd, async (core, g) => {
        const account = opts.account ? getAccount(core, existingAccount(core, opts.account)) : undefined;
        const scope: WatchScope = { accountId: account?.id, descendants: opts.descendants };
        const feed = new WatchFeed(openWatchSource(core, scope), { pollMs });
        if (!io.isTTY || opts.once || g.json) {
          await streamUntilStopped(feed, io, { once: !!opts.once, tail: tail ?? (opts.once ? undefined : 10), json: g.json, pollMs });
          return;
        }
        // React and Ink load only here, so every other command starts without them.
        const { runScreen } = await import('../tui/screen.js');
        await runScreen(feed, scopeLabel(g.db, account, opts.descendants));
        feed.stop();
      });
    });
}

async function streamUntilStopped(feed: WatchFeed, io: CliIo, opts: { once: boolean; tail?: number; json: boolean; pollMs: number }): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await runStream(feed, (line) => io.out(line), { ...opts, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

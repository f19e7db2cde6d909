import { existsSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AllowListInvalid, parseAllowList, type AllowRule } from '../recording/allow.js';
import type { LabSecrets } from '../recording/logins.js';
import type { ExchangeResult } from '../recording/replay.js';
import { htmlReport, resultJson, resultLines, summaryLine } from '../recording/report.js';
import { CliError, globalsOf, readSource, type CliIo } from './io.js';
import { serverUrl } from './record.js';

interface DiffOptions {
  against: string;
  allow?: string;
  lab?: string;
  html?: string;
}

/** Exchanges a side-by-side page shows in full at most (the others are in the command's output). */
const HTML_EXCHANGES = 200;

const HELP = `
Replays a recording made by tel record, one exchange at a time in the order the requests started,
against another server (normally a fresh tel serve --ephemeral built from a lab), and compares
each answer with the recorded one: the status, the envelope, the shape and values of data. What
a server makes up — ids, revisions, tokens, API keys, paging keys, realms, timestamps, request
ids — is mapped from the recorded server's to the replayed one's as the answers show it, and the
replayed requests carry the new values. Logins are replayed too: the recording holds no secret in
clear, so tel diff finds each login's secret again in --lab (the lab file the replayed server was
built from, with its users' passwords and its accounts' API keys) or, for a user whose password
the recorded client set, from that password.

The report lists each exchange that is not identical (differing with a minimal diff, failing with
why, skipped when no answer was recorded), then a summary; --json gives it as one JSON document;
--html writes a page with each one's answers side by side. An allow-list file (--allow) holds the
differences you expect, one a line: [METHOD] [PATH] FIELD, * standing for a segment, ** for any:

  data.*.pvt_modified                      # anywhere
  /v2/accounts/*/webhooks data.retries     # on those paths
  GET /v2/about data.version               # for one method

Exit codes: 0 when nothing differs or fails outside the allow-list, 1 otherwise, 2 usage.

Examples:
  $ tel serve --ephemeral --fixture lab.yaml --port 8100           in another terminal: a fresh server from the lab
  $ tel diff traffic.jsonl --against http://127.0.0.1:8100 --lab lab.yaml
  $ tel diff traffic.jsonl --against http://127.0.0.1:8100 --lab lab.yaml --allow known.txt --json
  $ tel diff traffic.jsonl --against http://127.0.0.1:8100 --lab lab.yaml --html diff.html`;

/** `tel diff`: replays a recording against a server and reports what it answers differently. */
export function defineDiff(diff: Command, io: CliIo): void {
  diff
    .requiredOption('--against <url>', 'the server to replay the recording against: http(s)://host:port')
    .option('--allow <file>', 'differences to allow, one a line: [METHOD] [PATH] FIELD (see below)')
    .option('--lab <file>', "the lab file the server was built from: its users' passwords and API keys log the replay in")
    .option('--html <file>', "write a page with each exchange that is not identical, its answers side by side")
    .addHelpText('after', HELP)
    .action(async (recording: string, opts: DiffOptions, cmd: Command) => {
      const g = globalsOf(cmd);
      const against = serverUrl(opts.against, '--against');
      let allow: AllowRule[] = [];
      if (opts.allow !== undefined) {
        try {
          allow = parseAllowList(await readSource(io, opts.allow));
        } catch (err) {
          if (err instanceof AllowListInvalid) throw new CliError(`${opts.allow}, ${err.message}.`, 2);
          throw err;
        }
      }
      let lab: LabSecrets | undefined;
      if (opts.lab !== undefined) {
        const [{ loadLab }, { labSecrets }] = await Promise.all([import('./lab.js'), import('../recording/logins.js')]);
        lab = labSecrets(await loadLab(io, opts.lab));
      }
      if (!existsSync(recording)) throw new CliError(`Cannot read ${recording}.`, 2);
      const [{ replayRecording }, { RecordingInvalid }] = await Promise.all([import('../recording/replay.js'), import('../recording/read.js')]);
      // only what an output asks for is kept: the page's first answers, the JSON's results
      const paged: ExchangeResult[] = [];
      const listed: ReturnType<typeof resultJson>[] = [];
      let summary;
      try {
        summary = await replayRecording({
          file: recording,
          against,
          allow,
          lab,
          each: (r) => {
            if (r.verdict === 'identical') return;
            if (opts.html !== undefined && paged.length < HTML_EXCHANGES) paged.push(r);
            if (g.json) listed.push(resultJson(r));
            else io.out(resultLines(r).join('\n'));
          },
        });
      } catch (err) {
        if (err instanceof RecordingInvalid) throw new CliError(err.message, 2);
        throw err;
      }
      if (opts.html !== undefined) writeFileSync(opts.html, htmlReport(recording, against.href, summary, paged, summary.exchanges - summary.identical - paged.length));
      if (g.json) io.out(JSON.stringify({ recording, against: against.href, ...summary, results: listed }, null, 2));
      else io.out(summaryLine(summary, against.href));
      const bad = summary.differing + summary.failing;
      if (bad > 0) throw new CliError(`${bad} exchange${bad === 1 ? '' : 's'} of ${recording} came out differently outside the allow-list.`);
    });
}

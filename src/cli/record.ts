import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import type { Command } from 'commander';
import { RECORDING_VERSION, type RecordingHeader } from '../recording/format.js';
import { PLACEHOLDER_RULE } from '../recording/secrets.js';
import type { WrittenExchange } from '../recording/writer.js';
import { CliError, globalsOf, portOf, type CliIo } from './io.js';
import { untilStopped } from './signals.js';

interface RecordOptions {
  upstream: string;
  host: string;
  port: string;
  out: string;
}

/** How long exchanges under way may take to end once tel record is asked to stop. */
const STOP_GRACE_MS = 5_000;

const HELP = `
Put it between a Kazoo client (Monster UI, an SDK, a script) and a real Kazoo, or any tel: the
client talks to tel record's address, which forwards every request as it came (Host included,
uploads and large answers streamed, connections kept alive, CORS preflights too) and writes each
exchange to the recording: method, path, query, headers and body of the request and of the answer,
and timings. Secrets never reach the file: tokens (X-Auth-Token, auth_token, any JWT), API keys,
credentials, passwords, signing secrets, pins and tokens in query strings become placeholders, the
same one for the same secret. The recording is JSON Lines (docs/record-diff.md); tel diff replays
it against another server.

Examples:
  $ tel record --upstream http://kazoo.lab:8000              listen on http://127.0.0.1:8001, write recording.jsonl
  $ tel record --upstream http://127.0.0.1:8000 --port 0 --out traffic.jsonl --json
  $ tel diff traffic.jsonl --against http://127.0.0.1:8000 --lab lab.yaml   then replay it

Stops cleanly on Ctrl-C (SIGINT) or SIGTERM: exchanges under way get 5 s to end, then the file is
complete.`;

/** A server's URL given to `option` (--upstream, --against), checked: http or https, no query, fragment or credentials. */
export function serverUrl(text: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${option} must be a URL (http://host:port), not ${text}.`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`${option} must be an http or https URL, not ${text}.`, 2);
  if (url.search || url.hash || url.username || url.password) throw new CliError(`${option} takes no query, fragment or credentials.`, 2);
  return url;
}

/** One line of tel record's output for an exchange written. */
function exchangeLine(e: WrittenExchange): string {
  const answer = e.aborted ? `not answered: ${e.aborted}` : `${e.status} ${e.ms?.toFixed(1)} ms`;
  return `#${e.seq} ${e.method} ${e.path}${e.query ? `?${e.query}` : ''} → ${answer}`;
}

/** `tel record`: a reverse proxy that records every exchange, secrets redacted. */
export function defineRecord(record: Command, io: CliIo): void {
  record
    .requiredOption('--upstream <url>', 'the server to forward to and record (a Kazoo or a tel): http(s)://host:port')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8001')
    .option('--out <file>', 'the recording to write (JSON Lines; refused when it exists)', 'recording.jsonl')
    .addHelpText('after', HELP)
    .action(async (opts: RecordOptions, cmd: Command) => {
      const g = globalsOf(cmd);
      const upstream = serverUrl(opts.upstream, '--upstream');
      const port = portOf(opts.port);
      if (existsSync(opts.out)) throw new CliError(`${opts.out} exists: record to another --out, or remove it first.`);
      // the proxy, undici and the thread load only when a recording starts
      const [{ RecordingWriter }, { startRecordingProxy }] = await Promise.all([import('../recording/writer.js'), import('../recording/proxy.js')]);
      const header: RecordingHeader = { tel_recording: RECORDING_VERSION, started: new Date().toISOString(), upstream: upstream.href, salt: randomBytes(16).toString('base64'), placeholders: PLACEHOLDER_RULE };
      let writer;
      try {
        writer = await RecordingWriter.open(opts.out, header, (batch) => io.out(batch.map((e) => (g.json ? JSON.stringify(e) : exchangeLine(e))).join('\n')));
      } catch (err) {
        throw new CliError(`Cannot record: ${(err as Error).message}.`);
      }
      let proxy;
      try {
        proxy = await startRecordingProxy({ host: opts.host, port, upstream, sink: writer });
      } catch (err) {
        await writer.close().catch(() => undefined);
        rmSync(opts.out, { force: true });
        throw new CliError(`Cannot listen on ${opts.host}:${port}: ${(err as Error).message}.`);
      }
      io.out(g.json ? JSON.stringify({ listening: proxy.url, upstream: upstream.href, out: opts.out }) : `tel record listening on ${proxy.url}, forwarding to ${upstream.href}, recording to ${opts.out}`);
      const failed = await Promise.race([untilStopped().then(() => undefined), writer.failed]);
      io.err('tel record: stopping…');
      await proxy.close(STOP_GRACE_MS);
      // a recording that failed stops the proxy: a client must not go on unrecorded
      if (failed) throw new CliError(`The recording failed (${failed.message}); ${opts.out} holds what came before.`);
      const n = await writer.close().catch((err: Error) => {
        throw new CliError(`The recording could not be completed (${err.message}).`);
      });
      io.err(`tel record: ${n} exchange${n === 1 ? '' : 's'} recorded in ${opts.out}`);
    });
}

import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { closeCore } from '../core.js';
import { generatePassword, initDatabase, isInitialised } from '../modules/accounts/bootstrap.js';
import { CliError, globalsOf, portOf, type CliIo } from './io.js';
import { openCoreAt, warnUsersWithoutKey } from './database.js';
import { apiOptions, serveEphemeral, type ServeOptions } from './ephemeral.js';
import { serversOn, type ServerRecord } from '../store/presence.js';
import { startServing } from './start-serving.js';
import { untilStopped } from './signals.js';

/** `tel serve`: the HTTP API on the database, initialising a new one first. */
export function defineServe(serve: Command, io: CliIo): void {
  serve
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8000')
    .option(
      '--allowed-host <name>',
      'a Host name to answer besides loopback ones, when listening on a loopback address (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option(
      '--allowed-origin <origin>',
      "a web page's origin (https://ui.example.com) allowed to log in through a browser, besides this machine's pages (repeatable; * for any)",
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--metrics', 'answer GET /metrics to any client (by default: clients on this machine, and super-duper admin tokens)')
    .option('--access-log', 'print a line for each request answered: client, time, method, path (secrets left out), status, bytes, time taken, request id (--json: an object)')
    .option('--share', 'serve the database although another server runs on it: the two share its deliveries and jobs')
    .option('--ephemeral', 'serve a temporary database, removed when the server stops')
    .option('--fixture <file>', 'with --ephemeral: a lab file (tel apply) to build the database from')
    .addHelpText(
      'after',
      `
Examples:
  $ tel serve                       ./tel.db on http://127.0.0.1:8000
  $ tel serve --db lab.db --port 0  any free port
  $ tel serve --allowed-host tel.lab.test   also answer requests for http://tel.lab.test:8000
  $ tel serve --host 0.0.0.0 --allowed-origin https://ui.example.com   Monster UI served from there logs in
  $ tel serve --ephemeral --port 0 --json   a throw-away database; the URL on the first line, then the master credentials as JSON
  $ tel serve --ephemeral --fixture examples/lab.yaml --port 0   a throw-away lab for a CI job
  $ tel serve --access-log          a line per request on stdout

A second server on a database another one serves is refused, unless --share: the two would share
its deliveries and jobs, each sent or run once by whichever takes it first, so neither server's
log nor its /metrics would show them all.

On a loopback address, requests whose Host is not a loopback name (or an --allowed-host) get 403:
a web page cannot reach tel through DNS rebinding. Logins (user_auth, api_auth) answer a browser's
CORS only for pages of this machine, of an --allowed-host name, or of an --allowed-origin: a web page
elsewhere cannot send them through its visitors' browsers.
A full disk under the database stops nothing but writes: they answer 507 (an I/O error or a
read-only file: 503), reads go on, deliveries and jobs wait, and all of it resumes by itself once
there is space again; the log says when it began and when it ended.
GET /metrics answers the server's health in Prometheus' text format (event-loop delay, requests by
route and status, deliveries, outbox backlog, breakers, jobs, memory): to clients on this machine,
to super-duper admin tokens from elsewhere, or to anyone with --metrics.
Stops cleanly on Ctrl-C (SIGINT) or SIGTERM, finishing in-flight work; an --ephemeral server then
removes its database.`,
    )
    .action(async (opts: ServeOptions, cmd: Command) => {
      const g = globalsOf(cmd);
      const port = portOf(opts.port);
      if (opts.ephemeral || opts.fixture) return serveEphemeral(io, cmd, { ...opts, port });
      const fresh = g.db === ':memory:' || !existsSync(g.db);
      const core = openCoreAt(g.db);
      let generated: { result: ReturnType<typeof initDatabase>; password: string } | undefined;
      try {
        const others = fresh ? [] : serversOn(core.db);
        if (others.length > 0 && !opts.share) throw new CliError(`${describeServers(g.db, others)}: a second one would share its deliveries and jobs (each sent or run once, by whichever server takes it first). Stop it, serve another file (--db), or run beside it with --share.`);
        if (others.length > 0) io.err(`Note: ${describeServers(g.db, others)}; this one shares its deliveries and jobs (--share).`);
        if (fresh || !isInitialised(core)) {
          const password = generatePassword();
          generated = { result: initDatabase(core, { account: 'master', username: 'admin', password }), password };
        }
      } catch (err) {
        closeCore(core);
        throw err;
      }
      warnUsersWithoutKey(io, core);
      let api;
      // a signal while the server starts stops it once started (until then it would kill it)
      const stopped = untilStopped();
      try {
        api = await startServing(core, opts.host, port, apiOptions(io, opts, g.json));
      } catch (err) {
        closeCore(core);
        throw err;
      }
      if (generated) {
        const r = generated.result;
        io.out(
          [
            `Created ${g.db} with a master account (super-duper admin). Shown once, keep them:`,
            `  account_id  ${r.account_id}`,
            `  username    admin`,
            `  password    ${generated.password}`,
            `  api_key     ${r.api_key}`,
            '',
            'Get a token:',
            `  curl -s -X PUT ${api.url}/v2/api_auth -H 'Content-Type: application/json' -d '{"data":{"api_key":"${r.api_key}"}}'`,
            '',
          ].join('\n'),
        );
      }
      io.out(`tel listening on ${api.url}`);
      await stopped;
      io.err('tel: stopping…');
      await api.close();
      closeCore(core);
    });
}

/** Who already serves a file, for the sentence of a second `tel serve` on it. */
function describeServers(file: string, servers: ServerRecord[]): string {
  const who = servers.map((s) => {
    const [host, pid] = s.identity.split('/');
    return [s.url ?? `host ${host}`, `pid ${pid}`, `since ${new Date(s.since).toISOString()}`].join(', ');
  });
  return `${servers.length === 1 ? 'A server already serves' : `${servers.length} servers already serve`} ${file} (${who.join('; ')})`;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { closeCore, openCore } from '../core.js';
import { generatePassword, initDatabase } from '../modules/accounts/bootstrap.js';
import { masterAccount } from '../modules/accounts/service.js';
import type { Lab } from '../lab/read.js';
import type { Plan } from '../lab/plan.js';
import { applyOrFail, loadLab, planOrRefuse } from './lab.js';
import { CliError, globalsOf, type CliIo } from './io.js';
import { untilStopped } from './signals.js';
import { startServing } from './start-serving.js';
import type { ApiOptions } from '../http/app.js';
import { accessLine, type AccessEntry } from '../http/access-log.js';

/** The options of `tel serve`. */
export interface ServeOptions {
  host: string;
  port: string;
  allowedHost: string[];
  allowedOrigin: string[];
  ephemeral?: boolean;
  fixture?: string;
  metrics?: boolean;
  accessLog?: boolean;
  share?: boolean;
}

/** What `tel serve` hands the API of its options (the access log written to `io`). */
export function apiOptions(io: CliIo, opts: ServeOptions | Omit<ServeOptions, 'port'>, json: boolean): ApiOptions {
  return {
    allowedHosts: opts.allowedHost,
    allowedOrigins: opts.allowedOrigin,
    openMetrics: opts.metrics,
    ...(opts.accessLog ? { accessLog: (e: AccessEntry) => io.out(json ? JSON.stringify(e) : accessLine(e)) } : {}),
  };
}

/** The master account's credentials, as `--json` prints them. */
interface MasterCredentials {
  account_id: string;
  api_key: string;
  username?: string;
  password?: string;
}

/**
 * `tel serve --ephemeral`: a database in a temporary directory, built from a lab file or
 * initialised as `tel init` would, served, and removed when the server stops (SIGINT, SIGTERM,
 * or the process exiting otherwise). The URL is the first line printed.
 */
export async function serveEphemeral(io: CliIo, cmd: Command, opts: Omit<ServeOptions, 'port'> & { port: number }): Promise<void> {
  if (!opts.ephemeral) throw new CliError('--fixture goes with --ephemeral (to build an existing database from a lab file, use tel apply).', 2);
  for (let c: Command | null = cmd; c; c = c.parent) {
    if ((c.opts() as { db?: string }).db !== undefined) throw new CliError('--ephemeral makes its own database: --db does not go with it.', 2);
  }
  const g = globalsOf(cmd);
  // the file is checked before anything is made
  const lab = opts.fixture ? await loadLab(io, opts.fixture) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'tel-ephemeral-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.on('exit', removeDir);
  const file = join(dir, 'tel.db');
  const core = openCore(file);
  let api;
  try {
    const master = lab ? await buildFromLab(io, core, lab) : initialise(core);
    // a signal while the server starts stops it once started (until then it would kill it)
    const stopped = untilStopped();
    api = await startServing(core, opts.host, opts.port, apiOptions(io, opts, g.json));
    io.out(api.url);
    if (g.json) io.out(JSON.stringify({ url: api.url, db: file, ...master }));
    else {
      io.out(
        [
          `A throw-away database${opts.fixture ? ` built from ${opts.fixture}` : ''}, removed when tel stops: ${file}`,
          'Master account (super-duper admin):',
          `  account_id  ${master.account_id}`,
          ...(master.username ? [`  username    ${master.username}`] : []),
          ...(master.password ? [`  password    ${master.password}`] : []),
          `  api_key     ${master.api_key}`,
        ].join('\n'),
      );
    }
    await stopped;
    io.err('tel: stopping…');
    await api.close();
  } finally {
    closeCore(core);
    removeDir();
    process.off('exit', removeDir);
  }
}

function initialise(core: ReturnType<typeof openCore>): MasterCredentials {
  const password = generatePassword();
  const r = initDatabase(core, { account: 'master', username: 'admin', password });
  return { account_id: r.account_id, api_key: r.api_key, username: 'admin', password };
}

/** Applies a lab to the new database; its master account's first admin user is the one shown. */
async function buildFromLab(io: CliIo, core: ReturnType<typeof openCore>, lab: Lab): Promise<MasterCredentials> {
  if (lab.account.parent) throw new CliError(`The fixture's account has a parent (${lab.account.parent}): a fixture describes a whole database.`);
  const plan: Plan = await planOrRefuse(io, core, lab, false);
  applyOrFail(core, plan);
  const master = masterAccount(core)!;
  const users = [...lab.account.collections].find(([kind]) => kind.key === 'users')?.[1] ?? [];
  const admin = users.find((u) => u.doc.priv_level === 'admin') ?? users[0];
  const password = admin && (admin.password ?? plan.generated.find((x) => x.name === `${lab.account.path}/${admin.key} password`)?.value);
  return { account_id: master.id, api_key: master.apiKey, ...(admin ? { username: admin.key, password } : {}) };
}

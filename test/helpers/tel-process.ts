import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEL_BIN } from './cli.js';

/** A long-running `tel` child process (serve, sink, watch) and what it printed so far. */
export interface TelProcess {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** stdout's complete lines that are JSON objects, parsed */
  json(): Record<string, any>[];
  /** resolves with `fn`'s first truthy answer, polled; rejects after `timeoutMs` naming `what` and the output */
  until<T>(fn: () => Awaitable<T | undefined | false | null>, what: string, timeoutMs?: number): Promise<T>;
  /** sends `signal` and resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

type Awaitable<T> = T | Promise<T>;

/** Polls `fn` every 25 ms until it answers (or resolves to) something truthy. */
export async function until<T>(fn: () => Awaitable<T | undefined | false | null>, what: string, timeoutMs = 8000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts `tel …args` on the project's Node and follows its output. */
export function startTel(args: string[], env?: NodeJS.ProcessEnv): TelProcess {
  const child = spawn(process.execPath, [TEL_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env ? { ...process.env, ...env } : undefined });
  const p: TelProcess = {
    child,
    stdout: '',
    stderr: '',
    json() {
      return p.stdout
        .split('\n')
        .slice(0, -1)
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
    },
    until(fn, what, timeoutMs) {
      return until(() => {
        if (child.exitCode !== null) throw new Error(`tel ${args[0]} exited (${child.exitCode}) while waiting for ${what}:\n${p.stdout}${p.stderr}`);
        return fn();
      }, `${what}\n${p.stdout}${p.stderr}`, timeoutMs);
    },
    stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      return exited;
    },
  };
  child.stdout!.on('data', (d) => (p.stdout += d));
  child.stderr!.on('data', (d) => (p.stderr += d));
  return p;
}

/** Starts `tel sink --json` on a free port of the database; resolves once it listens, with its URL. */
export async function startTelSink(db: string, ...options: string[]): Promise<TelProcess & { url: string }> {
  const p = startTel(['sink', '--db', db, '--port', '0', '--json', ...options]);
  // the first start of the bundle on a busy box is slow
  const first = await p.until(() => p.json()[0], 'tel sink to listen', 20_000);
  return Object.assign(p, { url: String(first.listening) });
}

/** Starts `tel serve` on a free port of the database; resolves once it listens, with its URL. */
export async function startTelServe(db: string, ...options: string[]): Promise<TelProcess & { url: string }> {
  return startTelServeWith(db, {}, ...options);
}

/** `tel serve` as startTelServe starts it, with more in its environment (NODE_OPTIONS, say). */
export async function startTelServeWith(db: string, env: NodeJS.ProcessEnv, ...options: string[]): Promise<TelProcess & { url: string }> {
  const p = startTel(['serve', '--db', db, '--port', '0', ...options], env);
  const url = await p.until(() => /tel listening on (http:\/\/\S+)/.exec(p.stdout)?.[1], 'tel serve to listen', 20_000);
  return Object.assign(p, { url });
}

/** The bench's preload that has a server report how long it held its event loop (on SIGUSR2). */
const LOOP_DELAY = fileURLToPath(new URL('../../scripts/bench/lib/loop-delay.cjs', import.meta.url));

/** `tel serve` that says, on `heldSinceLast`, the most CPU its main thread spent without a turn. */
export function startTelServeWatched(db: string, ...options: string[]): Promise<TelProcess & { url: string }> {
  return startTelServeWith(db, { NODE_OPTIONS: `--require ${LOOP_DELAY}` }, ...options);
}

/**
 * The most CPU (ms) a watched server's main thread spent without a turn since it last said: its
 * own work holding the loop, which a busy machine's scheduling does not add to.
 */
export async function heldSinceLast(serve: TelProcess): Promise<number> {
  const before = serve.stderr.length;
  serve.child.kill('SIGUSR2');
  const line = await serve.until(() => /loop-delay \S+ (\S+)\n/.exec(serve.stderr.slice(before)), 'the server to say how long it held its loop', 5000);
  return Number(line[1]);
}

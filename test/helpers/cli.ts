import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/program.js';

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tel` in this process (fast), capturing its output. */
export async function runTel(args: string[], opts: { stdin?: string; isTTY?: boolean } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (s) => (stdout += s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => (stderr += s.endsWith('\n') ? s : `${s}\n`),
    isTTY: opts.isTTY ?? false,
    readStdin: opts.stdin === undefined ? undefined : async () => opts.stdin!,
    write: (s) => void (stdout += s),
  });
  return { code, stdout, stderr };
}

/** The launcher of the bundled CLI (`npm run bundle` is done by the global setup). */
export const TEL_BIN = fileURLToPath(new URL('../../bin/tel.js', import.meta.url));

/** Runs the real `tel` in a child process on the project's Node; resolves when it exits. */
export function spawnTel(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TEL_BIN, ...args], { env: { ...process.env, ...(opts.env ?? {}) } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else child.stdin.end();
  });
}

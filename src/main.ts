import { runCli } from './cli/program.js';

/** A server's job thread loads this same bundle for this (see jobs/thread.ts); it runs no command. */
export async function runJobThread(file: string): Promise<void> {
  return (await import('./jobs/thread.js')).runJobThread(file);
}

if (!(globalThis as { telThread?: boolean }).telThread) {
  // `tel … | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }

  const code = await runCli(process.argv.slice(2), {
    out: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
    isTTY: Boolean(process.stdout.isTTY),
    write: (s) => (process.stdout.write(s) ? undefined : new Promise<void>((resolve) => process.stdout.once('drain', resolve))),
  });
  process.exitCode = code;
}

import { runCli } from './cli/program.js';
import { StdOutput } from './cli/stdio.js';

/** A server's job thread loads this same bundle for this (see jobs/thread.ts); it runs no command. */
export async function runJobThread(file: string): Promise<void> {
  return (await import('./jobs/thread.js')).runJobThread(file);
}

/** The recording thread of `tel record` loads this same bundle for this (see recording/writer.ts). */
export async function runRecordingThread(data: Parameters<typeof import('./recording/writer.js').runRecordingThread>[0]): Promise<void> {
  return (await import('./recording/writer.js')).runRecordingThread(data);
}

if (!(globalThis as { telThread?: boolean }).telThread) {
  const stdout = new StdOutput(1, () => process.stdout);
  const stderr = new StdOutput(2, () => process.stderr);
  const code = await runCli(process.argv.slice(2), {
    out: (s) => stdout.write(s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => stderr.write(s.endsWith('\n') ? s : `${s}\n`),
    isTTY: stdout.isTTY(),
    write: (s) => (stdout.write(s) ? undefined : new Promise<void>((resolve) => stdout.stream().once('drain', resolve))),
    // a command's code may write to process.stderr itself (a server's log): the streams, and their
    // closed-pipe handler, are there before it runs
    commandLoaded: () => {
      stdout.stream();
      stderr.stream();
    },
  });
  process.exitCode = code;
  // No command's code was loaded and every line went straight to the descriptors (help, the
  // version, a usage error): nothing is left to wait for. Ending here skips the rest of the
  // event loop's turns and the young generation's collection V8 has scheduled by then (2-3 ms,
  // --trace-gc): `dist/tel --help` 89.0 ms instead of 96.5 (medians of 40 interleaved runs).
  if (!stdout.streamMade() && !stderr.streamMade()) process.exit(code);
}

import { fstatSync, writeSync } from 'node:fs';

/**
 * Standard output or error for the CLI. Node makes `process.stdout` when first asked, and for a
 * pipe that loads node:net and the streams: 3.5 ms, a tenth of `tel --help` through a pipe. So
 * until the stream is made — once a command's code is loaded (main.ts), on a terminal, or when
 * the descriptor refuses (a full pipe its reader made non-blocking) — text goes straight to the
 * file descriptor; through the stream from then on, in the order it was written.
 */
export class StdOutput {
  private made: NodeJS.WriteStream | undefined;

  constructor(
    private readonly fd: number,
    private readonly make: () => NodeJS.WriteStream,
  ) {}

  /** True once the stream is made: what was written since may still wait in it. */
  streamMade(): boolean {
    return this.made !== undefined;
  }

  /** The stream, made at the first call. */
  stream(): NodeJS.WriteStream {
    if (!this.made) {
      this.made = this.make();
      this.made.on('error', exitOnClosedPipe);
    }
    return this.made;
  }

  /** Writes `text` whole; false when the stream asks to wait for 'drain' (as a stream's write). */
  write(text: string): boolean {
    if (this.made) return this.made.write(text);
    const bytes = Buffer.from(text);
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.fd, bytes, done);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPIPE') exitOnClosedPipe(err as NodeJS.ErrnoException);
      // a full pipe its reader made non-blocking (EAGAIN), or anything else: the stream knows what to do
      return this.stream().write(bytes.subarray(done));
    }
  }

  /** True on a terminal; the stream is made only then (a pipe or a file is never one). */
  isTTY(): boolean {
    let characterDevice = false;
    try {
      characterDevice = fstatSync(this.fd).isCharacterDevice();
    } catch {
      /* closed: not a terminal */
    }
    return characterDevice && this.stream().isTTY === true;
  }
}

/** `tel … | head` closes the pipe early: that is the reader's choice, not an error. */
function exitOnClosedPipe(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
}

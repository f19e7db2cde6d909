import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, createWriteStream, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTel, TEL_BIN } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';
import { StdOutput } from './stdio.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('tel-stdio-');
});
afterAll(() => tmp?.cleanup());

describe('standard output without its stream until a command needs it', () => {
  it('writes straight to the file, then through the stream once made, in the order written; a file is no terminal', async () => {
    const file = join(tmp.dir, 'out.txt');
    const fd = openSync(file, 'w');
    let made = 0;
    const out = new StdOutput(fd, () => {
      made++;
      return createWriteStream('', { fd, autoClose: false }) as unknown as NodeJS.WriteStream;
    });
    expect(out.isTTY()).toBe(false);
    expect(out.write('one\n')).toBe(true);
    expect(made).toBe(0);
    const stream = out.stream();
    out.write('two\n');
    out.write('three\n');
    await new Promise<void>((resolve) => stream.end(resolve));
    closeSync(fd);
    expect(made).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('tel --help through a pipe prints what the program makes off a terminal (80 columns)', async () => {
    const piped = spawnSync(process.execPath, [TEL_BIN, '--help'], { encoding: 'utf8' });
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toBe((await runTel(['--help'])).stdout);
    // a terminal's io in a process whose stdout is none (a test's) asks the stream for a width it does not have: 80
    expect((await runTel(['--help'], { isTTY: true })).stdout).toBe(piped.stdout);
  });

  it('a pipe nobody reads any more: tel --help (written straight to it) ends with 0 and nothing on stderr', () => {
    // a FIFO whose only reader has gone: the first write fails with EPIPE
    const fifo = join(tmp.dir, 'closed.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    closeSync(reader);
    try {
      const run = spawnSync(process.execPath, [TEL_BIN, '--help'], { stdio: ['ignore', writer, 'pipe'], encoding: 'utf8' });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
    } finally {
      closeSync(writer);
    }
  });

  it('a reader that stops early (`tel openapi | head -c 100`, through the stream) ends tel with 0 and nothing on stderr', async () => {
    const child = spawn(process.execPath, [TEL_BIN, 'openapi'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // the document is about 1 MB: far more than a pipe holds, so tel is still writing when the pipe closes
    const first = await new Promise<Buffer>((resolve) => child.stdout.once('data', resolve));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(first.toString().startsWith('{')).toBe(true);
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  const hasTmux = spawnSync('tmux', ['-V']).status === 0;
  it.skipIf(!hasTmux)('on a terminal, the help is as wide as the terminal', async () => {
    const socket = join(tmp.dir, 'tmux.sock');
    const tmux = (...args: string[]) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
    tmux('new-session', '-d', '-s', 'help', '-x', '60', '-y', '120', `${process.execPath} ${TEL_BIN} --help; sleep 30`);
    try {
      let screen = '';
      for (let i = 0; i < 100 && !/Global options work/.test(screen); i++) {
        await new Promise((r) => setTimeout(r, 50));
        screen = tmux('capture-pane', '-p', '-t', 'help');
      }
      const lines = screen.split('\n');
      expect(lines[0]).toBe('Usage: tel [options] [command]');
      // the descriptions wrap at 60 columns, not at the 80 of a pipe
      const described = lines.filter((l) => /^ {2}\S/.test(l) && l.length > 35);
      expect(described.length).toBeGreaterThan(10);
      expect(Math.max(...described.map((l) => l.trimEnd().length))).toBeLessThanOrEqual(60);
    } finally {
      tmux('kill-server');
    }
  });
});

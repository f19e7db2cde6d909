import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small tmpfs of its own: a disk a test can fill, grow and free. */
export interface SmallDisk {
  dir: string;
  /** writes a file of zeros until the disk has no space left; answers its path */
  fill(name?: string): string;
  /** changes the disk's size (`64m`): space comes back without removing anything */
  resize(size: string): void;
  /** unmounts it (lazily, should a process still hold a file) and removes the mount point */
  cleanup(): void;
}

function mount(dir: string, size: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
}

/** Mounts a tmpfs of `size` (`4m`) on a new directory; throws when mounting is not permitted. */
export function mountSmallDisk(size: string): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'tel-disk-'));
  try {
    mount(dir, size);
  } catch (err) {
    rmdirSync(dir);
    throw err;
  }
  return {
    dir,
    fill(name = 'filler') {
      const file = join(dir, name);
      const fd = openSync(file, 'a');
      const chunk = Buffer.alloc(64 * 1024);
      try {
        for (let size = chunk.length; size >= 512; ) {
          try {
            writeSync(fd, chunk, 0, size);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
            size >>= 1;
          }
        }
      } finally {
        closeSync(fd);
      }
      return file;
    },
    resize(size) {
      execFileSync('mount', ['-o', `remount,size=${size}`, dir], { stdio: 'pipe' });
    },
    cleanup() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Why tests that need a small disk cannot run here (mounting needs root and a kernel that lets
 * this process mount), or undefined when they can. Found by mounting one and unmounting it.
 */
export function smallDiskUnavailable(): string | undefined {
  try {
    mountSmallDisk('1m').cleanup();
    return undefined;
  } catch (err) {
    const e = err as { stderr?: Buffer; message?: string };
    return `mounting a tmpfs is not permitted here (${(e.stderr?.toString() || e.message || String(err)).trim()})`;
  }
}

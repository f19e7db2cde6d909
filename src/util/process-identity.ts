import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Proof of life for a process that may be gone. A pid alone is not enough: a SIGKILLed process
 * stays a zombie (its pid answers `kill(pid, 0)`) until its parent reaps it, and pids are reused.
 * On Linux the kernel tells both apart: `/proc/<pid>/stat` holds the process state (`Z` for a
 * zombie) and its start time in clock ticks since boot, which a reused pid does not share. So an
 * identity is `host/pid/start`; a process of this host is dead when its pid is gone, a zombie, or
 * started at another time. Where /proc cannot be read (another OS), `kill(pid, 0)` decides, and
 * callers keep a time lease as the last resort (and for other hosts, which cannot be checked).
 */

interface Stat {
  state: string;
  start: string;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], start: fields[19] };
}

const hasProc = readStat(process.pid) !== undefined;
const self = `${hostname()}/${process.pid}/${readStat(process.pid)?.start ?? '0'}`;

/** This process's identity: `host/pid/start`. */
export function processIdentity(): string {
  return self;
}

/**
 * Whether the process an identity names is certainly gone: `true` only for a process of this
 * host that no longer runs (pid gone, zombie, or pid reused); `false` when alive or unknowable.
 */
export function isGone(identity: string): boolean {
  const [host, pidText, start] = identity.split('/');
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (hasProc) {
    const stat = readStat(pid);
    return !stat || stat.state === 'Z' || stat.state === 'X' || (start !== undefined && start !== '0' && stat.start !== start);
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

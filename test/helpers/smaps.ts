import { readFileSync, readlinkSync } from 'node:fs';

/** KB of a process's own executable in memory: its read-only mappings' size and resident part, its writable mappings' resident part. */
export interface ExecutableMemory {
  readOnly: { mapped: number; resident: number };
  writable: { resident: number };
}

/** What `/proc/{pid}/smaps` says of the process's executable (`self`: this process). */
export function executableMemory(pid: number | 'self' = 'self'): ExecutableMemory {
  const exe = readlinkSync(`/proc/${pid}/exe`);
  const kb: ExecutableMemory = { readOnly: { mapped: 0, resident: 0 }, writable: { resident: 0 } };
  let mapping: 'readOnly' | 'writable' | null = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) mapping = head[2] === exe ? (head[1][1] === 'w' ? 'writable' : 'readOnly') : null;
    else if (mapping === 'readOnly' && line.startsWith('Size:')) kb.readOnly.mapped += Number(/\d+/.exec(line)![0]);
    else if (mapping && line.startsWith('Rss:')) kb[mapping].resident += Number(/\d+/.exec(line)![0]);
  }
  return kb;
}

import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEL_BIN } from './cli.js';

/**
 * Writes `dir/tel`, a command that runs this checkout's CLI on the project's Node, and answers
 * a PATH with `dir` first: shells and doc examples then call `tel` as a user who installed it does.
 */
export function telOnPath(dir: string): string {
  const tel = join(dir, 'tel');
  writeFileSync(tel, `#!/bin/sh\nexec '${process.execPath}' '${TEL_BIN}' "$@"\n`);
  chmodSync(tel, 0o755);
  return `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`;
}

/** True when `command` can be run (a shell, curl, jq): tests skip, saying so, when a tool is absent. */
export function installed(command: string): boolean {
  return !spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status;
}

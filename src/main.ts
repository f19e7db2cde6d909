import { runCli } from './cli/program.js';

const code = await runCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
  err: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
  isTTY: Boolean(process.stdout.isTTY),
});
process.exitCode = code;

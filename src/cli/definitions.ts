import type { Command } from 'commander';

/** How each command the program declared is defined, once: its module loaded, its options, subcommands and action added. */
const definitions = new WeakMap<Command, () => Promise<void>>();

/** Records how `cmd` is defined (`buildProgram` does, for each command it declares). */
export function defineLater(cmd: Command, how: () => Promise<void>): void {
  let defined: Promise<void> | undefined;
  definitions.set(cmd, () => (defined ??= how()));
}

/** Defines a command of the program, once. */
export function define(cmd: Command): Promise<void> {
  return definitions.get(cmd)?.() ?? Promise.resolve();
}

/** Defines every command of the program (the completion scripts, the reference pages). */
export async function defineAll(program: Command): Promise<Command> {
  await Promise.all(program.commands.map(define));
  return program;
}

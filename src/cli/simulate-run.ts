import type { Command } from 'commander';
import { simulate } from '../modules/simulations/module.js';
import type { EmittedEvent } from '../modules/simulations/registry.js';
import { emit, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

/** Adds one `tel simulate <kind>` subcommand; each simulation kind registers its own. */
export type SimulateCommand = (simulate: Command, io: CliIo) => void;

/** Runs a simulation offline on the database and prints the events it emitted. */
export async function runSimulation(cmd: Command, io: CliIo, accountId: string, data: Record<string, unknown>): Promise<void> {
  await withCore(cmd, (core, g) => {
    const events = simulate(core, existingAccount(core, accountId), data);
    emit(io, g, { events }, () => events.map(describeEvent).join('\n'));
  });
}

function describeEvent(e: EmittedEvent): string {
  return `${e.event}${e.call_id ? `  call_id=${e.call_id}` : ''}`;
}

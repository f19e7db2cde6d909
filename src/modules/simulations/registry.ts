import type { Core } from '../../core.js';

/** One event a simulation emitted, as the simulations endpoint lists it. */
export interface EmittedEvent {
  event: string;
  call_id?: string;
  [field: string]: unknown;
}

/** A simulation kind: validates its fields, publishes its events, answers them in order. */
export type Simulation = (core: Core, accountId: string, data: Record<string, unknown>) => EmittedEvent[];

/** Simulation kinds by `data.kind` (`call`, `parking`, `queue_call`, `voicemail`); modules add theirs. */
export const SIMULATIONS: Record<string, Simulation> = {};

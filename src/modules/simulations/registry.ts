import type { Core } from '../../core-type.js';
import { payloadJson, type PlatformEvent } from '../../delivery/bus.js';

/** One event a simulation emitted, as the simulations endpoint lists it. */
export interface EmittedEvent {
  event: string;
  call_id?: string;
  [field: string]: unknown;
}

/** A simulation kind: validates its fields, publishes its events, answers them in order. */
export type Simulation = (core: Core, accountId: string, data: Record<string, unknown>) => EmittedEvent[];


/** Emitted events that list a published event as it is, by the event they list. */
const listed = new WeakMap<EmittedEvent, PlatformEvent>();

/**
 * The emitted event `{event, ...payload}` of a published event. Its JSON is made from the
 * payload's, which the event's deliveries serialised already: one serialisation for both (the
 * object must not change afterwards). A payload with an `event` key or integer-like keys (whose
 * place in the object differs) is serialised on its own.
 */
export function listEvent(name: string, published: PlatformEvent): EmittedEvent {
  const e: EmittedEvent = { event: name, ...published.payload };
  if (keysKeepTheirPlace(published.payload)) listed.set(e, published);
  return e;
}

/** No `event` key and no integer-like key (which objects place first): `{event, ...payload}` keeps the payload's order. */
function keysKeepTheirPlace(payload: Record<string, unknown>): boolean {
  for (const k in payload) {
    const c = k.charCodeAt(0);
    if ((c >= 48 && c <= 57) || k === 'event') return false;
  }
  return true;
}

/** The JSON text of `{events}` as the simulations endpoint answers it. */
export function eventsJson(events: EmittedEvent[]): string {
  const parts = events.map((e) => {
    const published = listed.get(e);
    if (!published) return JSON.stringify(e);
    const name = JSON.stringify(e.event);
    const p = payloadJson(published);
    return p === '{}' ? `{"event":${name}}` : `{"event":${name},${p.slice(1)}`;
  });
  return `{"events":[${parts.join(',')}]}`;
}

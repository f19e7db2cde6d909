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


/**
 * The emitted event `{event, ...payload}` of a published event, without copying the payload: its
 * `event` and `call_id` are at hand, and it serialises (toJSON) as that object would. Its JSON is
 * made from the payload's, which the event's deliveries serialised already: one serialisation for
 * both (the payload must not change afterwards).
 */
class ListedEvent implements EmittedEvent {
  [field: string]: unknown;
  readonly event: string;
  readonly call_id?: string;
  readonly #published: PlatformEvent;
  /** `{event, ...payload}` keeps the payload's order: its JSON is the payload's with `event` put first */
  readonly #splices: boolean;

  constructor(name: string, published: PlatformEvent) {
    this.event = name;
    const callId = published.payload.call_id;
    if (typeof callId === 'string') this.call_id = callId;
    this.#published = published;
    this.#splices = keysKeepTheirPlace(published.payload);
  }

  toJSON(): Record<string, unknown> {
    return { event: this.event, ...this.#published.payload };
  }

  /** This event's JSON text. */
  json(): string {
    if (!this.#splices) return JSON.stringify(this);
    const p = payloadJson(this.#published);
    const name = JSON.stringify(this.event);
    return p === '{}' ? `{"event":${name}}` : `{"event":${name},${p.slice(1)}`;
  }
}

/** The emitted event listing a published event as it is (see ListedEvent). */
export function listEvent(name: string, published: PlatformEvent): EmittedEvent {
  return new ListedEvent(name, published);
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
  let text = '{"events":[';
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (i > 0) text += ',';
    text += e instanceof ListedEvent ? e.json() : JSON.stringify(e);
  }
  return `${text}]}`;
}

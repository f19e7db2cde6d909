import { describe, expect, it } from 'vitest';
import { payloadJson } from '../../delivery/bus.js';
import { legEvent } from '../channels/events.js';
import { eventsJson, listEvent, type EmittedEvent } from './registry.js';

const published = (payload: Record<string, unknown>) => ({ type: 'channel_create', accountId: 'a', payload });

describe('the JSON of emitted events', () => {
  it.each([
    ['a call leg', { account_id: 'a', call_id: 'c@x', custom_channel_vars: {}, caller_id_name: 'Zoë "Z"', is_internal_leg: false, n: 1.5 }],
    ['an empty payload', {}],
    ['integer-like keys (placed first in an object)', { b: 1, 2: 'two', 10: 'ten' }],
    ['a payload with its own `event`', { event: 'inner', x: 1 }],
  ])('%s is what serialising the listed objects gives', (_name, payload) => {
    const p = published(payload);
    // a delivery serialised the payload already
    payloadJson(p);
    const events: EmittedEvent[] = [listEvent('channel_create', p), { event: 'other', call_id: 'c' }];
    expect(eventsJson(events)).toBe(JSON.stringify({ events }));
  });
});

describe('a listed event', () => {
  it('names its event and call, and serialises as the event with the payload', () => {
    const e = listEvent('channel_create', published({ call_id: 'c@x', caller_id_number: '+1' }));
    expect(e.event).toBe('channel_create');
    expect(e.call_id).toBe('c@x');
    expect(JSON.parse(JSON.stringify(e))).toEqual({ event: 'channel_create', call_id: 'c@x', caller_id_number: '+1' });
  });
});

describe("a call leg's event", () => {
  const base = { account_id: 'a', call_id: 'c@x', caller_id_name: 'Zoë "Z"\n', custom_channel_vars: {}, is_internal_leg: false };
  it.each([
    ['no fields of its own', base, undefined],
    ['fields of its own, one undefined', base, { hangup_cause: 'NORMAL_CLEARING', other_leg_call_id: undefined, duration_seconds: 30 }],
    ['a field the call has too (it keeps its place)', base, { caller_id_name: 'other', x: 1 }],
    ['an integer-like field (placed first)', base, { 7: 'seven' }],
    ['its own hook_event', base, { hook_event: 'x' }],
    ['an empty call', {}, { a: [1, { b: null }] }],
  ])('with %s has the JSON that serialising its payload gives', (_name, b, extra) => {
    const e = legEvent('channel_destroy', 'a', b, JSON.stringify(b), extra, 63_900_000_000);
    expect(e.payload).toEqual({ ...b, ...extra, hook_event: 'channel_destroy', timestamp: 63_900_000_000 });
    expect(payloadJson(e)).toBe(JSON.stringify(e.payload));
  });
});

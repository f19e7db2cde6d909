import { describe, expect, it } from 'vitest';
import { payloadJson } from '../../delivery/bus.js';
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

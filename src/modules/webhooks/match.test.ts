import { describe, expect, it } from 'vitest';
import type { PlatformEvent } from '../../delivery/bus.js';
import { deliveryTraits, hookPayload, hookWants } from './match.js';

const event = (type: string, payload: Record<string, unknown>): PlatformEvent => ({ type, accountId: 'a1', payload });

describe('which events a hook wants', () => {
  const call = event('channel_create', { call_direction: 'inbound', to: '+1415', is_internal_leg: false });
  const internal = event('channel_answer', { call_direction: 'inbound', is_internal_leg: true });

  it.each([
    ['no modifiers: every event of its type', {}, call, true],
    ['a modifier the payload has, equal', { modifiers: { call_direction: 'inbound' } }, call, true],
    ['a modifier the payload has, different', { modifiers: { call_direction: 'outbound' } }, call, false],
    ['a modifier listing values: one of them', { modifiers: { call_direction: ['outbound', 'inbound'] } }, call, true],
    ['a modifier listing none of the value', { modifiers: { call_direction: ['outbound'] } }, call, false],
    ['a modifier the payload lacks', { modifiers: { hangup_cause: 'NORMAL' } }, call, false],
    ['a modifier the payload lacks, wanting the text "undefined"', { modifiers: { hangup_cause: 'undefined' } }, call, false],
    ['two modifiers, both equal', { modifiers: { call_direction: 'inbound', to: '+1415' } }, call, true],
    ['two modifiers, the second different', { modifiers: { call_direction: 'inbound', to: '+1999' } }, call, false],
    ['an internal leg, include_internal_legs unset', {}, internal, true],
    ['an internal leg, include_internal_legs false', { include_internal_legs: false }, internal, false],
    ['an external leg, include_internal_legs false', { include_internal_legs: false }, call, true],
    ['not a channel hook: internal legs are not its concern', { include_internal_legs: false }, event('parking', { is_internal_leg: true }), true],
    ['not a notifications hook: a modifier named type is one like any other', { modifiers: { type: 'park' } }, event('parking', { type: 'park', event_name: 'parked' }), true],
  ] as const)('%s', (_name, doc, ev, wanted) => {
    expect(hookWants(doc as Record<string, unknown>, ev)).toBe(wanted);
  });

  const created = event('object', { action: 'doc_created', type: 'device', id: 'd1' });
  const edited = event('object', { action: 'doc_edited', type: 'user', id: 'u1' });
  it.each([
    ['object: no filters', {}, created, true],
    ['object: action from custom_data, equal', { custom_data: { action: 'doc_created' } }, created, true],
    ['object: action from custom_data, different', { custom_data: { action: 'doc_deleted' } }, created, false],
    ['object: action "all"', { custom_data: { action: 'all' } }, created, true],
    ['object: doc_updated is doc_edited', { modifiers: { action: 'doc_updated' } }, edited, true],
    ['object: an empty list means all', { modifiers: { type: [] } }, created, true],
    ['object: a filter set to null means all', { custom_data: { action: null } }, created, true],
    ['object: type from modifiers', { modifiers: { type: 'device' } }, created, true],
    ['object: type not this one', { modifiers: { type: 'user' } }, created, false],
    ['object: types listing it', { custom_data: { types: ['user', 'device'] } }, created, true],
    ['object: types not listing it', { custom_data: { types: ['user'] } }, created, false],
    ['object: a filter in modifiers and another in custom_data, both allow', { modifiers: { type: 'device' }, custom_data: { action: 'doc_created' } }, created, true],
    ['object: custom_data refuses what modifiers allow', { modifiers: { type: 'device' }, custom_data: { action: 'doc_edited' } }, created, false],
    ['object: a plain modifier still applies', { modifiers: { id: 'd2' } }, created, false],
    ['notifications: custom_data type equal', { custom_data: { type: 'voicemail_new' } }, event('notifications', { event_name: 'voicemail_new' }), true],
    ['notifications: custom_data type different', { custom_data: { type: 'voicemail_new' } }, event('notifications', { event_name: 'webhook_disabled' }), false],
    ['notifications: type from modifiers', { modifiers: { type: 'webhook_disabled' } }, event('notifications', { event_name: 'webhook_disabled' }), true],
    ['notifications: no type, every notification', {}, event('notifications', { event_name: 'anything' }), true],
    ['notifications: another modifier must match', { modifiers: { type: 'voicemail_new', account_id: 'x' } }, event('notifications', { event_name: 'voicemail_new', account_id: 'y' }), false],
  ] as const)('%s', (_name, doc, ev, wanted) => {
    expect(hookWants(doc as Record<string, unknown>, ev)).toBe(wanted);
  });
});

describe("what a hook's delivery carries", () => {
  it('custom_data merged over the payload, its filter keys left out for object and notifications hooks', () => {
    const ev = event('object', { action: 'doc_created', type: 'device', id: 'd1' });
    expect(hookPayload({}, ev)).toBe(ev.payload);
    expect(hookPayload({ custom_data: { type: 'device', action: 'all', types: ['x'], crm: 'acme' } }, ev)).toEqual({ action: 'doc_created', type: 'device', id: 'd1', crm: 'acme' });
    const note = event('notifications', { event_name: 'voicemail_new' });
    expect(hookPayload({ custom_data: { type: 'voicemail_new', action: 'kept' } }, note)).toEqual({ event_name: 'voicemail_new', action: 'kept' });
    const call = event('channel_create', { to: '+1415' });
    expect(hookPayload({ custom_data: { to: '+1999', type: 'kept' } }, call)).toEqual({ to: '+1999', type: 'kept' });
  });

  it('the secret, a rotated-out one while its grace lasts, and the rate', () => {
    const now = 1_000_000;
    const previous = { secret: 'whsec_old', until: now + 1 };
    expect(deliveryTraits({}, previous, now)).toEqual({});
    expect(deliveryTraits({ secret: 'whsec_new', rate_limit_per_s: 5 }, previous, now)).toEqual({ secret: 'whsec_new', previousSecret: previous, ratePerS: 5 });
    expect(deliveryTraits({ secret: 'whsec_new' }, { secret: 'whsec_old', until: now }, now)).toEqual({ secret: 'whsec_new' });
    expect(deliveryTraits({ secret: 'whsec_new' }, null, now)).toEqual({ secret: 'whsec_new' });
    expect(deliveryTraits({ rate_limit_per_s: '5' }, null, now)).toEqual({});
  });
});

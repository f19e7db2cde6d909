import { describe, expect, it } from 'vitest';
import { EventBus, payloadJson, type PlatformEvent } from './bus.js';

describe('the event bus', () => {
  it('hands each event to every subscriber in the order they came; one that leaves hears no more, the others still do', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    const leaveA = bus.subscribe((e) => heard.push(`a ${e.type}`));
    bus.subscribe((e) => heard.push(`b ${e.type}`));
    const event: PlatformEvent = { type: 'object', accountId: 'acc', payload: {} };
    bus.publish(event);
    leaveA();
    bus.publish({ ...event, type: 'parking' });
    expect(heard).toEqual(['a object', 'b object', 'b parking']);
  });

  it("an event's payload is made JSON once, for all who send it", () => {
    const event: PlatformEvent = { type: 'object', accountId: 'acc', payload: { a: 1, b: ['x'] } };
    expect(payloadJson(event)).toBe('{"a":1,"b":["x"]}');
    expect(event.json).toBe('{"a":1,"b":["x"]}');
    event.payload.a = 2;
    expect(payloadJson(event)).toBe('{"a":1,"b":["x"]}');
    expect(payloadJson({ ...event, json: '{"given":true}' })).toBe('{"given":true}');
  });
});

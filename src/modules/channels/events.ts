import type { PlatformEvent } from '../../delivery/bus.js';

/**
 * One leg's event: the call's fields, the leg's own, `hook_event` and `timestamp` — as the object
 * `{...base, ...extra, hook_event, timestamp}` and, made from `baseJson` (the base's JSON text),
 * exactly the text `JSON.stringify` of it gives, so that neither its deliveries nor the answer
 * serialise it again. A field of `extra` the object would not append (one `base` has too, or an
 * integer-like one) makes it serialised whole instead.
 */
export function legEvent(
  event: string,
  accountId: string,
  base: Record<string, unknown>,
  baseJson: string,
  extra: Record<string, unknown> | undefined,
  timestamp: number,
): PlatformEvent {
  const payload: Record<string, unknown> = { ...base };
  let json: string | undefined = baseJson.length > 2 ? `${baseJson.slice(0, -1)},` : '{';
  if (Object.hasOwn(base, 'hook_event') || Object.hasOwn(base, 'timestamp')) json = undefined;
  if (extra) {
    for (const k in extra) {
      const v = extra[k];
      // a key the object would not append: one base has, one set last, or an integer-like one (placed first)
      if (Object.hasOwn(base, k) || k === 'hook_event' || k === 'timestamp' || (k.charCodeAt(0) >= 48 && k.charCodeAt(0) <= 57)) json = undefined;
      payload[k] = v;
      if (json !== undefined && v !== undefined) json += `${keyJson(k)}:${typeof v === 'number' && Number.isFinite(v) ? String(v) : JSON.stringify(v)},`;
    }
  }
  payload.hook_event = event;
  payload.timestamp = timestamp;
  return json === undefined
    ? { type: event, accountId, payload }
    : { type: event, accountId, payload, json: `${json}"hook_event":${keyJson(event)},"timestamp":${timestamp}}` };
}

const keyJsons = new Map<string, string>();

/** The JSON text of a field name (or event name): the few a simulation uses, serialised once each. */
function keyJson(key: string): string {
  let json = keyJsons.get(key);
  if (json === undefined) {
    json = JSON.stringify(key);
    if (keyJsons.size < 1000) keyJsons.set(key, json);
  }
  return json;
}

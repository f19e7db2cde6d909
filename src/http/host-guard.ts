import { isIP } from 'node:net';

/**
 * DNS rebinding guard. A server bound to a loopback address is meant for this machine only, yet a
 * web page elsewhere can point a name it controls at 127.0.0.1 and have the browser talk to tel.
 * Such a request carries the attacker's name in `Host`, so it is refused unless that name is a
 * loopback name or address, or one the user allowed (`tel serve --allowed-host`). A server bound to
 * another address is reachable by design and is not guarded.
 */
export type HostGuard = (hostHeader: string | undefined) => boolean;

/** True for `localhost`, `*.localhost`, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || h.startsWith('::ffff:127.');
  return false;
}

/** The host name of a `Host` header, without its port (`[::1]:8000` → `::1`). */
export function hostName(header: string): string {
  const h = header.trim();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.indexOf(':');
  return (colon >= 0 ? h.slice(0, colon) : h).toLowerCase();
}

/**
 * The guard for a server bound to `bindHost`, or undefined when none is needed. A request without
 * `Host` (HTTP/1.0 tools) passes: browsers always send one.
 */
export function hostGuard(bindHost: string, allowed: readonly string[] = []): HostGuard | undefined {
  if (!isLoopbackHost(bindHost)) return undefined;
  const extra = new Set(allowed.map((a) => hostName(a)));
  const seen = new Map<string, boolean>();
  return (header) => {
    if (header === undefined || header === '') return true;
    let ok = seen.get(header);
    if (ok === undefined) {
      const name = hostName(header);
      ok = isLoopbackHost(name) || extra.has(name);
      // Only good answers are remembered: refused names must not grow the map.
      if (ok && seen.size < 256) seen.set(header, ok);
    }
    return ok;
  };
}

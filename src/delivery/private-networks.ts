import { BlockList, isIPv4 } from 'node:net';
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

/**
 * Addresses that are not the public internet: this machine, private and shared networks,
 * link-local ones (cloud metadata services among them), multicast, reserved and unspecified.
 */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one stands for (`::ffff:10.0.0.1`, NAT64's `64:ff9b::a00:1`), if any. */
function embeddedIPv4(address: string): string | undefined {
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for an address that is not on the public internet (see NON_PUBLIC). */
export function isNonPublicAddress(address: string): boolean {
  if (isIPv4(address)) return NON_PUBLIC.check(address, 'ipv4');
  const v4 = embeddedIPv4(address);
  return v4 !== undefined ? NON_PUBLIC.check(v4, 'ipv4') : NON_PUBLIC.check(address, 'ipv6');
}

/** A delivery refused because its connection reached a non-public address. */
export class NonPublicAddress extends Error {
  readonly code = 'TEL_NON_PUBLIC_ADDRESS';
}

/**
 * undici's `connect`, with a check once connected: a connection whose peer (the address the name
 * resolved to, whatever the URL says) is not public is closed before a byte of the request is
 * sent, and the try fails.
 */
export function publicOnly(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...[err, socket]) => {
      if (err) return callback(err, null);
      const peer = (socket as Socket).remoteAddress ?? '';
      if (!isNonPublicAddress(peer)) return callback(null, socket);
      socket.destroy();
      callback(new NonPublicAddress(`${peer} is not a public address (webhooks deny_private_networks)`), null);
    });
}

/** The hosts (as URLs name them, lower case, without brackets) a connection of this process reached a non-public address for. */
const nonPublicHosts = new Set<string>();

/** A host as URLs and undici name it, compared: lower case, an IPv6 address without its brackets. */
function hostKey(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * undici's `connect`, noting each host whose connection reached a non-public address (the address
 * its name resolved to, whatever the URL says): what such an endpoint answers is an internal
 * service's, shown to super-duper admins only (see reachedNonPublic).
 */
export function notingPeers(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...[err, socket]) => {
      if (err) return callback(err, null);
      if (isNonPublicAddress((socket as Socket).remoteAddress ?? '')) nonPublicHosts.add(hostKey(options.hostname));
      callback(null, socket);
    });
}

/**
 * Whether a connection of this process to `hostname` ever reached a non-public address. Once is
 * enough, for good: a name that resolves now to a public address and now to a private one (DNS
 * rebinding) cannot have a private answer pass as a public one, since the connection that reaches
 * it is noted before a byte of the request is sent.
 */
export function reachedNonPublic(hostname: string): boolean {
  return nonPublicHosts.has(hostKey(hostname));
}

import { describe, expect, it } from 'vitest';
import type { buildConnector } from 'undici';
import { attemptJson, responsesShownTo, type AttemptRow } from './attempts.js';
import { isNonPublicAddress, NonPublicAddress, notingPeers, publicOnly, reachedNonPublic } from './private-networks.js';

/** A connector whose every connection reaches `address`, as undici's would once the name is resolved. */
const reaching = (address: string): buildConnector.connector => (_options, callback) => callback(null, { remoteAddress: address } as never);

const connectTo = (connect: buildConnector.connector, hostname: string) =>
  new Promise<void>((resolve, reject) => connect({ hostname, host: hostname, protocol: 'http:', port: '80' } as never, (...[err]) => (err ? reject(err) : resolve())));

describe("what an endpoint answered, as the address it was reached on allows", () => {
  it('a host whose connection reached a non-public address is noted for good, whatever its name or case', async () => {
    await connectTo(notingPeers(reaching('203.0.113.9')), 'crm.example.com');
    expect(reachedNonPublic('crm.example.com')).toBe(false);
    // the same name, now resolved to this machine (DNS rebinding): noted, and stays noted
    await connectTo(notingPeers(reaching('127.0.0.1')), 'CRM.example.com');
    await connectTo(notingPeers(reaching('203.0.113.9')), 'crm.example.com');
    expect(reachedNonPublic('crm.example.com')).toBe(true);
    await connectTo(notingPeers(reaching('::ffff:10.1.2.3')), '[fd00::1]');
    expect(reachedNonPublic('[FD00::1]')).toBe(true);
  });

  it("an account's admins see the answers of public endpoints only; plain users none; super-duper admins all", () => {
    const row = (peer_public: number | null) => ({ id: 1, result: 'success', http_status: 200, resp_headers: '{"x":"1"}', resp_body: 'page', peer_public, created: 0 }) as AttemptRow;
    const admin = responsesShownTo({ admin: true, superduper: false });
    expect(attemptJson(row(1), admin).resp_body).toBe('page');
    for (const p of [0, null]) expect(attemptJson(row(p), admin)).not.toHaveProperty('resp_body');
    expect(attemptJson(row(1), responsesShownTo({ admin: false, superduper: false }))).not.toHaveProperty('resp_headers');
    expect(attemptJson(row(0), responsesShownTo({ admin: true, superduper: true })).resp_headers).toEqual({ x: '1' });
  });
});

describe('deny_private_networks: a connection to a non-public peer is closed before a byte is sent', () => {
  /** What a connector built on one reaching `address` (or failing with `err`) hands back, and whether the socket was destroyed. */
  const through = (wrap: (c: buildConnector.connector) => buildConnector.connector, address: string, err: Error | null = null) =>
    new Promise<{ err: Error | null; socket: unknown; destroyed: boolean }>((resolve) => {
      let destroyed = false;
      const socket = { remoteAddress: address, destroy: () => (destroyed = true) };
      const inner: buildConnector.connector = (_o, cb) => (err ? cb(err, null) : cb(null, socket as never));
      wrap(inner)({ hostname: 'svc.example', host: 'svc.example', protocol: 'http:', port: '80' } as never, (...[e, s]) =>
        resolve({ err: e, socket: s, destroyed }),
      );
    });

  it('a private peer: refused, named in the error, its socket destroyed; a public one passes; a failed connect is passed on', async () => {
    const refused = await through(publicOnly, '10.1.2.3');
    expect(refused.err).toBeInstanceOf(NonPublicAddress);
    expect(refused.err!.message).toBe('10.1.2.3 is not a public address (webhooks deny_private_networks)');
    expect((refused.err as NonPublicAddress).code).toBe('TEL_NON_PUBLIC_ADDRESS');
    expect([refused.socket, refused.destroyed]).toEqual([null, true]);
    const passed = await through(publicOnly, '203.0.113.7');
    expect([passed.err, (passed.socket as { remoteAddress: string }).remoteAddress, passed.destroyed]).toEqual([null, '203.0.113.7', false]);
    const failed = new Error('ECONNREFUSED');
    for (const wrap of [publicOnly, notingPeers]) {
      const out = await through(wrap, '10.1.2.3', failed);
      expect([out.err, out.socket, out.destroyed]).toEqual([failed, null, false]);
    }
    // a failed connect notes nothing
    expect(reachedNonPublic('svc.example')).toBe(false);
  });
});

describe('which peers deny_private_networks refuses', () => {
  it.each([
    // each non-public range, at its first and last address
    ['0.0.0.0', true], ['0.255.255.255', true],
    ['10.0.0.0', true], ['10.255.255.255', true],
    ['100.64.0.0', true], ['100.127.255.255', true],
    ['127.0.0.1', true], ['127.255.255.254', true],
    ['169.254.169.254', true],
    ['172.16.0.0', true], ['172.31.255.255', true],
    ['192.0.0.8', true],
    ['192.168.0.1', true], ['192.168.255.255', true],
    ['198.18.0.0', true], ['198.19.255.255', true],
    ['224.0.0.1', true], ['255.255.255.255', true],
    // the public addresses just outside them
    ['1.0.0.1', false], ['11.0.0.0', false], ['100.63.255.255', false], ['100.128.0.0', false],
    ['128.0.0.1', false], ['169.253.255.255', false], ['172.15.255.255', false], ['172.32.0.0', false],
    ['192.0.1.0', false], ['192.167.255.255', false], ['192.169.0.0', false], ['198.17.255.255', false],
    ['198.20.0.0', false], ['223.255.255.255', false], ['8.8.8.8', false],
    // IPv6: loopback, unspecified, unique-local, link-local, multicast; a public one
    ['::1', true], ['::', true], ['fc00::1', true], ['fdff:ffff::1', true], ['fe80::1', true], ['febf::1', true], ['ff02::1', true],
    ['2001:db8::1', false], ['2606:4700::1111', false], ['fec0::1', false], ['::2', false],
    // IPv4 carried in IPv6 (mapped, NAT64), dotted or in hex, judged as the IPv4 address
    ['::ffff:10.0.0.1', true], ['::FFFF:127.0.0.1', true], ['64:ff9b::192.168.1.1', true],
    ['::ffff:a00:1', true], ['::ffff:7f00:1', true], ['64:ff9b::a9fe:a9fe', true],
    ['::ffff:8.8.8.8', false], ['::ffff:808:808', false], ['64:ff9b::808:808', false],
    ['64:ff9b::192.168.10.1', true], ['64:ff9b::10.0.0.10', true],
    // a public IPv6 address whose last groups only look like a mapped one is judged as itself
    ['2606:4700::ffff:10.0.0.1', false], ['2606:4700::ffff:a00:1', false], ['::ffff:a00:1:2', false],
  ] as const)('%s: %s', (address, refused) => {
    expect(isNonPublicAddress(address)).toBe(refused);
  });
});

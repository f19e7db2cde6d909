import { describe, expect, it } from 'vitest';
import type { buildConnector } from 'undici';
import { attemptJson, responsesShownTo, type AttemptRow } from './attempts.js';
import { notingPeers, reachedNonPublic } from './private-networks.js';

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

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSink, type Sink } from '../../test/helpers/sink.js';
import { VERSION } from '../version.js';
import type { DeliveryRow } from './outbox.js';
import { notingPeers } from './private-networks.js';
import { buildRequest, clientErrorOf, sendTry, STORED_BODY_CHARS } from './send.js';
import { signatureHeaders } from './sign.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;

/**
 * A header of this run's own: requests are worked out once per URL and headers and kept for the
 * process (send.ts), so each run of the file asks with texts not seen before.
 */
let RUN = '';
beforeAll(() => {
  RUN = randomUUID();
});
const headersOf = (h: Record<string, string> = {}) => JSON.stringify({ ...h, 'X-Run': RUN });

/** An outbox row as the sender holds it: a JSON post of `{"a":1}` unless told otherwise. */
function row(over: Partial<DeliveryRow> = {}): DeliveryRow {
  const url = over.url ?? 'http://192.0.2.1/in';
  return {
    id: 1, event_id: 'ev-1', kind: 'webhook', account_id: 'acc', source_id: 'h1', source_name: 'Desk', event_name: 'channel_create',
    url, target: `${new URL(url).origin}${new URL(url).pathname} h1`, method: 'post', format: 'json', payload: '{"a":1,"b":"x y"}',
    headers: headersOf(), secret: null, previous_secret: null, previous_secret_until: null, rate_per_s: null, retries: 0, tries: 0,
    status: 'sending', due_at: 0, owner: null, lease_until: null, created: 0, modified: 0, ...over,
  };
}

describe('the request of one try', () => {
  it('a JSON post: the stored payload as is, its content type, the user agent and the event id', () => {
    expect(buildRequest(row())).toEqual({
      url: 'http://192.0.2.1/in',
      headers: { 'user-agent': `tel-webhooks/${VERSION}`, 'x-event-id': 'ev-1', 'x-run': RUN, 'content-type': 'application/json' },
      body: '{"a":1,"b":"x y"}',
    });
  });

  it('form data: the payload flattened into the body; a get: into the query string, with no body', () => {
    const form = buildRequest(row({ format: 'form-data' }));
    expect(form.body).toBe('a=1&b=x+y');
    expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const get = buildRequest(row({ method: 'get', url: 'http://192.0.2.1/in?t=1#part' }));
    expect(get).toEqual({ url: 'http://192.0.2.1/in?t=1&a=1&b=x+y', headers: { 'user-agent': `tel-webhooks/${VERSION}`, 'x-event-id': 'ev-1', 'x-run': RUN }, body: '' });
  });

  it("configured headers are sent lower-cased and win over tel's own; a fragment is not part of the URL", () => {
    const r = buildRequest(row({ url: 'http://192.0.2.1/in#top', headers: headersOf({ 'X-Hook-ID': 'h1', 'User-Agent': 'mine' }) }));
    expect(r.url).toBe('http://192.0.2.1/in');
    expect(r.headers).toMatchObject({ 'x-hook-id': 'h1', 'user-agent': 'mine' });
    expect(Object.keys(r.headers).filter((k) => k !== k.toLowerCase())).toEqual([]);
  });

  it("user:password@ in the URL is sent as Basic authorization, decoded, and left out of the URL; a configured authorization wins", () => {
    const r = buildRequest(row({ url: 'http://al%40ce:p%3Ass@192.0.2.1/in' }));
    expect(r.url).toBe('http://192.0.2.1/in');
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('al@ce:p:ss').toString('base64')}`);
    const own = buildRequest(row({ url: 'http://u:p@192.0.2.1/in', headers: headersOf({ Authorization: 'Bearer t' }) }));
    expect(own.headers.authorization).toBe('Bearer t');
    expect(own.url).toBe('http://192.0.2.1/in');
    // a user without a password, a password without a user
    expect(buildRequest(row({ url: 'http://al@192.0.2.1/in' })).headers.authorization).toBe(`Basic ${Buffer.from('al:').toString('base64')}`);
    expect(buildRequest(row({ url: 'http://:pw@192.0.2.1/in' })).headers.authorization).toBe(`Basic ${Buffer.from(':pw').toString('base64')}`);
    // an @ elsewhere than in the credentials changes nothing
    const at = buildRequest(row({ url: 'http://192.0.2.1/in?to=a@b' }));
    expect(at.url).toBe('http://192.0.2.1/in?to=a@b');
    expect(at.headers).not.toHaveProperty('authorization');
  });

  it('signed with the secret; with the rotated-out one too until its grace ends, not at or after it', () => {
    const now = 1_700_000_000_000;
    const one = buildRequest(row({ secret: SECRET }), now);
    expect(one.headers).toMatchObject(signatureHeaders([SECRET], 'ev-1', '{"a":1,"b":"x y"}', now));
    const graced = { secret: SECRET, previous_secret: OLD_SECRET, previous_secret_until: now + 1 };
    expect(buildRequest(row(graced), now).headers['webhook-signature']).toBe(signatureHeaders([SECRET, OLD_SECRET], 'ev-1', '{"a":1,"b":"x y"}', now)['webhook-signature']);
    expect(buildRequest(row({ ...graced, previous_secret_until: now }), now).headers['webhook-signature']).toBe(one.headers['webhook-signature']);
    expect(buildRequest(row({ ...graced, previous_secret_until: null }), now).headers['webhook-signature']).toBe(one.headers['webhook-signature']);
    // a get signs its empty body
    expect(buildRequest(row({ secret: SECRET, method: 'get' }), now).headers['webhook-signature']).toBe(signatureHeaders([SECRET], 'ev-1', '', now)['webhook-signature']);
  });
});

describe('one try against a real endpoint', () => {
  let sink: Sink;
  let agent: Agent;
  beforeAll(async () => {
    sink = await startSink();
    agent = new Agent({ connect: notingPeers(buildConnector({})) });
  });
  afterAll(async () => {
    await agent.close();
    await sink.close();
  });

  it('a 2xx is a success: the request as sent, the answer as received, the peer not public', async () => {
    sink.respond(() => ({ status: 201, headers: { 'x-seen': 'yes' }, body: 'thanks' }));
    const out = await sendTry(agent, row({ url: `${sink.url}/ok#frag`, headers: headersOf({ 'X-Hook-ID': 'h1' }) }), 5000);
    const got = sink.requests.at(-1)!;
    expect([got.method, got.url, got.body, got.headers['content-type'], got.headers['x-hook-id'], got.headers['x-event-id']]).toEqual([
      'POST', '/ok', '{"a":1,"b":"x y"}', 'application/json', 'h1', 'ev-1',
    ]);
    expect(out).toMatchObject({ ok: true, url: `${sink.url}/ok`, status: 201, respBody: 'thanks', reqBody: '{"a":1,"b":"x y"}', publicPeer: false });
    expect(out.reason).toBeUndefined();
    expect(out.respHeaders!['x-seen']).toBe('yes');
    expect(out.reqHeaders).toMatchObject({ 'x-hook-id': 'h1', 'content-type': 'application/json' });
    expect(out.reqHeaders).not.toHaveProperty('authorization');
  });

  it('a get carries the payload in its query and sends no body', async () => {
    sink.respond(() => ({ status: 200 }));
    const out = await sendTry(agent, row({ url: `${sink.url}/q?t=1`, method: 'get' }), 5000);
    const got = sink.requests.at(-1)!;
    expect([got.method, got.url, got.body, got.headers['content-length'], got.headers['transfer-encoding']]).toEqual(['GET', '/q?t=1&a=1&b=x+y', '', undefined, undefined]);
    expect(out).toMatchObject({ ok: true, url: `${sink.url}/q?t=1&a=1&b=x+y`, reqBody: '' });
  });

  it('a put goes as a put; a URL that spells its origin otherwise than the target does is sent to its own path', async () => {
    sink.respond(() => ({ status: 204 }));
    // a port written with a leading zero: the same endpoint, a longer origin
    const url = `${sink.url.replace(/:(\d+)$/, ':0$1')}/Put?x=1`;
    const out = await sendTry(agent, row({ url, method: 'put', target: `${sink.url}/Put h1` }), 5000);
    const got = sink.requests.at(-1)!;
    expect([got.method, got.url]).toEqual(['PUT', '/Put?x=1']);
    expect(out).toMatchObject({ ok: true, status: 204 });
  });

  it('the edges of success: 199 and 300 fail, 200 and 299 succeed; a failure is a bad response code', async () => {
    const results: [number, boolean, string | undefined][] = [];
    for (const status of [200, 299, 300, 404, 500]) {
      sink.respond(() => ({ status }));
      const out = await sendTry(agent, row({ url: `${sink.url}/edge` }), 5000);
      results.push([out.status!, out.ok, out.reason]);
    }
    expect(results).toEqual([
      [200, true, undefined],
      [299, true, undefined],
      [300, false, 'bad response code'],
      [404, false, 'bad response code'],
      [500, false, 'bad response code'],
    ]);
  });

  it("Retry-After is kept from a 429 and a 503 (the first of several), and from nothing else", async () => {
    const kept: (string | undefined)[] = [];
    for (const status of [429, 503, 500, 200]) {
      sink.respond(() => ({ status, headers: { 'retry-after': '7' } }));
      kept.push((await sendTry(agent, row({ url: `${sink.url}/ra` }), 5000)).retryAfter);
    }
    expect(kept).toEqual(['7', '7', undefined, undefined]);
  });

  it('an endpoint that does not answer in time: a response timeout, after about the timeout', async () => {
    sink.respond(() => 'hang');
    const started = performance.now();
    const out = await sendTry(agent, row({ url: `${sink.url}/hang` }), 150);
    expect(out).toMatchObject({ ok: false, reason: 'response timeout', clientError: 'timeout after 150 ms', status: undefined });
    expect(out.latencyMs).toBeGreaterThanOrEqual(140);
    expect(performance.now() - started).toBeLessThan(3000);
    sink.releaseHung();
  });

  it("a try that times out lets go of its connection at once, not when the client's own timers would", async () => {
    let closed = 0;
    const silent = createServer((req) => req.socket.on('close', () => (closed = Date.now())));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/quiet`;
      const out = await sendTry(agent, row({ url, target: `${url} h1` }), 100);
      expect(out.reason).toBe('response timeout');
      const gaveUp = Date.now();
      for (let i = 0; i < 100 && closed === 0; i++) await new Promise((r) => setTimeout(r, 10));
      // undici's own timers are off (send.ts): the try's timer is the only one
      expect(closed).toBeGreaterThan(0);
      expect(closed - gaveUp).toBeLessThan(1000);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it('an answer whose body stalls after its headers is ended by the same timer, and its connection let go', async () => {
    let closed = 0;
    const stalling = createServer((req, res) => {
      req.socket.on('close', () => (closed = Date.now()));
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
      res.write('the first bytes of a hundred');
    });
    await new Promise<void>((r) => stalling.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/stall`;
      const started = performance.now();
      const out = await sendTry(agent, row({ url, target: `${url} h1` }), 150);
      expect(out).toMatchObject({ ok: false, reason: 'response timeout', clientError: 'timeout after 150 ms' });
      expect(performance.now() - started).toBeLessThan(3000);
      for (let i = 0; i < 100 && closed === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(closed).toBeGreaterThan(0);
    } finally {
      stalling.closeAllConnections();
      await new Promise((r) => stalling.close(r));
    }
  });

  it('nobody listening: a connection error named as Kazoo names it', async () => {
    const closed = await startSink();
    const url = `${closed.url}/gone`;
    await closed.close();
    const out = await sendTry(agent, row({ url }), 2000);
    expect(out).toMatchObject({ ok: false, reason: 'connection error', clientError: 'econnrefused', url });
  });

  it('a request body longer than an attempt keeps is recorded cut, and sent whole', async () => {
    sink.respond(() => ({ status: 200 }));
    const payload = JSON.stringify({ big: 'z'.repeat(STORED_BODY_CHARS + 10) });
    const out = await sendTry(agent, row({ url: `${sink.url}/big`, payload }), 5000);
    expect(out.reqBody).toBe(payload.slice(0, STORED_BODY_CHARS));
    expect(sink.requests.at(-1)!.body).toBe(payload);
  });

  it('credentials are sent, and recorded hidden', async () => {
    sink.respond(() => ({ status: 200 }));
    const out = await sendTry(agent, row({ url: sink.url.replace('http://', 'http://u:pw@') + '/auth' }), 5000);
    expect(sink.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('u:pw').toString('base64')}`);
    expect(out.reqHeaders.authorization).toBe('(hidden)');
    expect(out.url).toBe(`${sink.url}/auth`);
  });

  it('a configuration that cannot make a safe request is a failure with no request made', async () => {
    const before = sink.requests.length;
    const out = await sendTry(agent, row({ url: `${sink.url}/x`, event_id: 'ev\r\nx-evil: 1' }), 5000);
    expect(out).toEqual({
      ok: false, url: `${sink.url}/x`, status: undefined, reason: 'invalid request', clientError: 'the event id holds a line break or NUL',
      latencyMs: 0, reqHeaders: {}, reqBody: '', respHeaders: undefined, respBody: undefined, retryAfter: undefined, publicPeer: undefined,
    });
    const url = await sendTry(agent, row({ url: `${sink.url}/y\nz` }), 5000);
    expect([url.url, url.clientError]).toEqual([`${sink.url}/yz`, 'the URL holds a line break or NUL']);
    const header = await sendTry(agent, row({ url: `${sink.url}/y`, headers: headersOf({ 'X-A\u0000': '1' }) }), 5000);
    expect(header.clientError).toBe('header "x-a\\u0000" holds a line break or NUL');
    expect(sink.requests.length).toBe(before);
  });
});

describe('transport errors as attempt records name them', () => {
  it.each([
    [{ code: 'ENOTFOUND' }, 'nxdomain'],
    [{ cause: { code: 'EAI_AGAIN' } }, 'nxdomain'],
    [{ code: 'UND_ERR_CONNECT_TIMEOUT' }, 'connect timeout'],
    [{ code: 'UND_ERR_SOCKET' }, 'socket closed'],
    [{ cause: { code: 'TEL_NON_PUBLIC_ADDRESS', message: '10.0.0.1 is not a public address' } }, '10.0.0.1 is not a public address'],
    [{ code: 'TEL_NON_PUBLIC_ADDRESS', message: 'refused' }, 'refused'],
    [{ code: 'ECONNRESET' }, 'econnreset'],
    [{ message: 'fetch failed', cause: { message: 'other side closed' } }, 'other side closed'],
    [{ message: 'boom' }, 'boom'],
    [{ code: 'TEL_NON_PUBLIC_ADDRESS' }, 'TEL_NON_PUBLIC_ADDRESS'],
    ['plain', 'plain'],
    [null, 'null'],
    [undefined, 'undefined'],
  ])('%j: %s', (err, name) => {
    expect(clientErrorOf(err)).toBe(name);
  });
});

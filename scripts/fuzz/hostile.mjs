// Seeded hostile HTTP requests against a running tel, sent byte for byte on raw connections:
// bad JSON, deep bodies, huge strings, odd paths, unknown tokens, odd query strings, odd methods
// and headers. Shared by the fuzz test of the suite and scripts/fuzz/memory.mjs.
import { connect } from 'node:net';

/** A small seeded PRNG (mulberry32): the same seed gives the same requests. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  const chars = (n, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789') => {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[int(alphabet.length)];
    return s;
  };
  return { next, int, pick, chars };
}

const ENDPOINTS = [
  'devices', 'vmboxes', 'callflows', 'faxboxes', 'media', 'queues', 'users', 'resources', 'webhooks',
  'limits', 'simulations', 'token_restrictions', 'push_notification_subscriptions', 'configs/webhooks',
  'phone_numbers', 'children', 'descendants', 'api_key', 'resources/collection', 'resources/jobs',
];
const METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const ODD_METHODS = ['FOO', 'get', 'PROPFIND', 'TRACE', 'CONNECT', 'M-SEARCH', 'PURGE', 'LINK', 'X'.repeat(300), 'G\u0000T'];

/** A JSON value of random shape, at most `depth` levels deep. */
function value(r, depth) {
  switch (r.int(depth > 0 ? 9 : 6)) {
    case 0: return null;
    case 1: return r.next() < 0.5;
    case 2: return r.pick([0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 1, r.int(1e9)]);
    case 3: return r.chars(r.int(40));
    case 4: return r.pick(['', 'true', '2', '\u0000', '\ud800', '💥', '../..', '%00', '<script>', 'a'.repeat(300)]);
    case 5: return String(r.int(100));
    case 6: return Array.from({ length: r.int(5) }, () => value(r, depth - 1));
    default: {
      const o = {};
      for (let i = r.int(6); i > 0; i--) o[r.pick(['name', 'id', 'data', '__proto__', 'constructor', 'enabled', 'numbers', 'uri', 'hook', r.chars(5)])] = value(r, depth - 1);
      return o;
    }
  }
}

function deepJson(r, depth) {
  const open = r.next() < 0.5 ? '['.repeat(depth) : '{"a":'.repeat(depth);
  const close = open.startsWith('[') ? ']'.repeat(depth) : '}'.repeat(depth);
  const inner = `${open}1${close}`;
  return r.pick([`{"data":${inner}}`, `{"data":{"name":"x","numbers":${inner}}}`, inner, `{"data":{"x":${inner}},"auth_token":${inner}}`]);
}

/**
 * The body of one hostile request. `maxString` bounds the huge strings (the suite keeps them
 * small; the memory run sends megabytes).
 */
function body(r, maxString) {
  switch (r.int(9)) {
    case 0: return r.pick(['{', '{"data":', '{"data":{"name":"x"', 'null', '[]', '"str"', '{"data":5}', '{"data":null}', 'nul', '{"a":1}}', '\u0000', '{"data":{}}garbage']);
    case 1: return Buffer.from(Array.from({ length: r.int(200) + 1 }, () => r.int(256)));
    case 2: return deepJson(r, 65 + r.int(20_000));
    case 3: return JSON.stringify({ data: { name: 'x'.repeat(r.int(maxString) + 1) } });
    case 4: return `{"data":{"name":"x","big":"${'\\u0041'.repeat(Math.floor(r.int(maxString) / 6) + 1)}"}}`;
    case 5: {
      const o = {};
      for (let i = r.int(Math.min(50_000, maxString / 10)); i > 0; i--) o[`k${i}`] = i;
      return JSON.stringify({ data: o });
    }
    case 6: return JSON.stringify({ auth_token: r.chars(r.int(maxString) + 1), data: {} });
    default: return JSON.stringify({ data: value(r, 4), ...(r.next() < 0.2 ? { accept_charges: value(r, 1) } : {}) });
  }
}

function segment(r, accountId) {
  switch (r.int(12)) {
    case 0: return accountId;
    case 1: return r.pick(['%ZZ', '%E0%A4%A', '%2F', '%2e%2e', '..', '.', '%00', '%C0%AF', '%', '%u0041']);
    case 2: return r.chars(32, '0123456789abcdef');
    case 3: return encodeURIComponent(r.pick(['💥', 'ä', '\u0000', ' ', '"', '<', '\\']));
    case 4: return r.chars(r.int(3000) + 1);
    default: return r.pick(ENDPOINTS);
  }
}

function path(r, accountId) {
  const kind = r.int(10);
  // a third are real write targets, where a body reaches validation
  if (kind >= 7) return r.pick([`/v2/accounts/${accountId}`, `/v2/accounts/${accountId}/${r.pick(ENDPOINTS)}`, '/v2/api_auth', '/v2/user_auth', '/v2/system_configs/webhooks']);
  if (kind === 0) return r.pick(['*', '/', '//', '/v2', '/v3/accounts', `http://evil/v2/accounts/${accountId}`, '/v2/%', '/v2/accounts/../../etc/passwd']);
  const prefix = r.pick(['/v2/accounts/', '/v1/accounts/', '/V2/ACCOUNTS/', '/v2/', '/']);
  const parts = kind === 1 ? Array.from({ length: r.int(1500) + 50 }, () => r.pick(ENDPOINTS)) : [accountId, ...Array.from({ length: r.int(4) }, () => segment(r, accountId))];
  return prefix + parts.join(r.next() < 0.9 ? '/' : '//') + query(r);
}

function query(r) {
  switch (r.int(8)) {
    case 0: return `?${Array.from({ length: r.int(3000) + 1 }, (_, i) => `p${i}=${r.chars(3)}`).join('&')}`;
    case 1: return `?start_key=${r.pick(['%%', 'x', Buffer.from('[[[[').toString('base64url'), Buffer.from('['.repeat(2000)).toString('base64url'), r.chars(500)])}`;
    case 2: return `?page_size=${r.pick(['-1', '0', '1e9', 'NaN', '9'.repeat(400), 'x'])}&paginate=${r.pick(['false', 'true', '%00'])}`;
    case 3: return `?auth_token=${r.chars(r.int(4000) + 1)}`;
    case 4: return `?${r.pick(['&&&', '=', '%zz=%zz', 'a=%E0%A4%A', '?', '#frag'])}`;
    default: return '';
  }
}

function headers(r, token, bodyBytes) {
  const h = [];
  const t = r.int(10);
  if (t < 4) h.push(`X-Auth-Token: ${token}`);
  else if (t === 4) h.push(`X-Auth-Token: ${r.chars(r.int(8000) + 1)}`);
  else if (t === 5) h.push(`Authorization: Bearer ${r.chars(r.int(500) + 1)}`);
  else if (t === 6) h.push(`X-Auth-Token: ${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`);
  switch (r.int(14)) {
    case 0: h.push(`X-Big: ${'a'.repeat(r.int(20_000))}`); break;
    case 1: h.push('Bad Header: x'); break;
    case 2: h.push(`Content-Length: ${bodyBytes + 10}`); break;
    case 3: h.push('Expect: bogus'); break;
    case 4: h.push(`X-Request-ID: ${r.pick(['', '../../x', 'a'.repeat(200), 'ok-1'])}`); break;
    case 5: h.push(`If-Match: ${r.pick(['*', '"x"', 'W/"1"', r.chars(100)])}`); break;
    case 6: h.push(`Content-Type: ${r.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '\u00ff'])}`); break;
    case 7: h.push(`Access-Control-Request-Method: ${r.pick(['PUT', 'FOO', ''])}`); break;
    case 8: h.push(...Array.from({ length: 150 }, (_, i) => `X-H${i}: ${i}`)); break;
    default:
  }
  return h;
}

/** One hostile request as raw bytes. */
export function hostileRequest(r, { token, accountId, maxString = 64 * 1024 }) {
  const method = r.next() < 0.9 ? r.pick(r.next() < 0.5 ? ['PUT', 'POST', 'PATCH'] : METHODS) : r.pick(ODD_METHODS);
  const p = path(r, accountId);
  const b = method === 'GET' && r.next() < 0.7 ? '' : body(r, maxString);
  const bytes = Buffer.isBuffer(b) ? b : Buffer.from(b);
  const h = headers(r, token, bytes.length);
  const framing = r.int(12) === 0 ? ['Transfer-Encoding: chunked'] : h.some((x) => x.startsWith('Content-Length')) ? [] : [`Content-Length: ${bytes.length}`];
  const payload = framing[0]?.startsWith('Transfer') ? Buffer.from(`${bytes.length.toString(16)}\r\n${bytes.toString('latin1')}\r\n0\r\n\r\n`, 'latin1') : bytes;
  const head = `${method} ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${[...h, ...framing].map((x) => `${x}\r\n`).join('')}\r\n`;
  // a body shorter than its Content-Length is a client that went away: nothing to answer
  const truncated = framing.length === 0 && h.some((x) => x === `Content-Length: ${bytes.length + 10}`);
  return { label: `${method} ${p.slice(0, 80)}`, bytes: Buffer.concat([Buffer.from(head, 'latin1'), payload]), truncated };
}

/** Sends raw bytes on a new connection; answers the status and content type (0 when the server said nothing). */
export function sendRaw(port, bytes, timeoutMs = 10_000) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks = [];
    let size = 0;
    let why = 'closed';
    const timer = setTimeout(() => {
      why = 'timed out';
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (d) => {
      // the head is all that is looked at; do not keep megabytes of answers
      if (size < 65_536) chunks.push(d);
      size += d.length;
    });
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const type = /\r\ncontent-type: ([^\r]*)/i.exec(text.slice(0, text.indexOf('\r\n\r\n') + 2))?.[1];
      const hasBody = /\r\ncontent-length: (?!0\r)/i.test(text);
      resolve({ status, type, hasBody, why });
    };
    socket.on('close', done);
    socket.on('error', (err) => (why = err.code ?? err.message));
    socket.end(bytes);
  });
}

/**
 * Fires `count` seeded hostile requests, `concurrency` at a time. Answers counts by status, and
 * the requests answered 5xx, not at all, or with a body that is not JSON.
 */
export async function fuzz(port, { seed = 1, count = 1000, concurrency = 8, token, accountId, maxString }) {
  const r = prng(seed);
  const byStatus = {};
  const problems = [];
  let sent = 0;
  async function worker() {
    while (sent < count) {
      sent += 1;
      const req = hostileRequest(r, { token, accountId, maxString });
      const res = await sendRaw(port, req.bytes);
      byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
      if (res.status >= 500) problems.push(`${res.status} ${req.label}`);
      else if (res.status === 0 && !req.truncated) problems.push(`no answer (${res.why}): ${req.label}`);
      else if (res.hasBody && res.type !== 'application/json') problems.push(`${res.status} ${res.type}: ${req.label}`);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sent, byStatus, problems };
}

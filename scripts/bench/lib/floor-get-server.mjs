// A node:http server for scripts/bench/get-floor.mjs, answering `GET /v2/accounts/{id}`.
// `bare`: fixed bytes, as the GET yardstick's baseline (../shared/bench/api.mjs) answers.
// `minimal`: the least an authenticated GET of a Kazoo envelope needs, all in memory: the token
// read from `X-Auth-Token` and looked up, its expiry and account checked, the path's account
// looked up, its document's JSON (kept as text) put in an envelope with a request id, a revision
// and the second's timestamp, with `X-Request-ID` and `ETag` headers. No database, no router, no
// restrictions, no metrics: a floor, not a server.
// argv[2]: JSON {mode: 'bare'|'minimal', token, accountId, doc, bodyB64}
import { createServer } from 'node:http';

const cfg = JSON.parse(process.argv[2]);
const JSON_TYPE = 'application/json';
let handle;
if (cfg.mode === 'bare') {
  const body = Buffer.from(cfg.bodyB64, 'base64');
  const headers = { 'content-type': JSON_TYPE, 'content-length': String(body.length) };
  handle = (req, res) => {
    req.resume();
    res.writeHead(200, headers);
    res.end(body);
  };
} else {
  const tokens = new Map([[cfg.token, { accountId: cfg.accountId, expires: Date.now() + 3_600_000 }]]);
  const accounts = new Map([[cfg.accountId, { json: JSON.stringify(cfg.doc), revision: '1-0123456789abcdef0123456789abcdef' }]]);
  const prefix = (Math.random() * 1e9).toString(16).slice(0, 8);
  let counter = 0;
  let second = 0;
  let timestamp = '';
  const unauthorized = (res) => {
    const body = '{"data":{"message":"invalid credentials"},"error":"401","message":"invalid_credentials","status":"error"}';
    res.writeHead(401, { 'content-type': JSON_TYPE, 'content-length': String(body.length) });
    res.end(body);
  };
  handle = (req, res) => {
    req.resume();
    const token = req.headers['x-auth-token'];
    const auth = typeof token === 'string' ? tokens.get(token) : undefined;
    if (!auth || auth.expires < Date.now()) return unauthorized(res);
    const id = req.url.split('/')[3];
    const account = accounts.get(id);
    if (!account || id !== auth.accountId) return unauthorized(res);
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) (second = now), (timestamp = new Date(now * 1000).toISOString().slice(0, 19));
    const requestId = prefix + (++counter).toString(16).padStart(24, '0');
    const body = `{"auth_token":"${token}","data":${account.json},"node":"floor","request_id":"${requestId}","revision":"${account.revision}","status":"success","timestamp":"${timestamp}","version":"0.1.0"}`;
    res.writeHead(200, { 'X-Request-ID': requestId, ETag: `"${account.revision}"`, 'Content-Type': JSON_TYPE, 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  };
}
const server = createServer(handle);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));

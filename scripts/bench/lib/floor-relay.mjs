// A two-hop relay for scripts/bench/durable-floor.mjs: takes each fired call (a PUT with a JSON
// body), answers 201 with a small envelope and POSTs one fixed delivery body to a sink with an
// undici Pool. In `durable` mode it first does the least a delivery that survives a crash needs:
// the delivery is written to an outbox row and committed before the call is answered, and once the
// sink answers, an attempt row is written and the outbox row deleted. Writes of the same turn
// share one transaction (as tel's group commit). No auth, no event building, no other table.
// argv[2]: JSON {mode: 'plain'|'durable', db, sinkOrigin, sinkPath, bodyB64, connections}
import { createServer } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'undici';

const cfg = JSON.parse(process.argv[2]);
const delivery = Buffer.from(cfg.bodyB64, 'base64');
const pool = new Pool(cfg.sinkOrigin, { connections: cfg.connections, pipelining: 1, keepAliveTimeout: 60_000 });
const answer = Buffer.from(JSON.stringify({ status: 'success', data: { events: [{ event: 'channel_create' }] }, request_id: 'x'.repeat(32), revision: 'x'.repeat(32), version: '0.1.0' }));
const headers = { 'content-type': 'application/json' };

/** Runs each turn's writes in one transaction, then calls their `after` (durable by then). */
function groupWriter(db) {
  let units = [];
  const flush = () => {
    const batch = units;
    units = [];
    db.exec('BEGIN IMMEDIATE');
    const results = batch.map((u) => u.write());
    db.exec('COMMIT');
    batch.forEach((u, i) => u.after(results[i]));
  };
  return (write, after) => {
    if (units.length === 0) setImmediate(flush);
    units.push({ write, after });
  };
}

let store;
if (cfg.mode === 'durable') {
  const db = new DatabaseSync(cfg.db);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  db.exec(`CREATE TABLE outbox (id INTEGER PRIMARY KEY, target TEXT NOT NULL, body BLOB NOT NULL, created INTEGER NOT NULL);
           CREATE TABLE attempts (id INTEGER PRIMARY KEY, outbox_id INTEGER NOT NULL, status INTEGER, request BLOB NOT NULL, response TEXT, created INTEGER NOT NULL);`);
  const enqueue = db.prepare('INSERT INTO outbox (target, body, created) VALUES (?, ?, ?)');
  const record = db.prepare('INSERT INTO attempts (outbox_id, status, request, response, created) VALUES (?, ?, ?, ?, ?)');
  const done = db.prepare('DELETE FROM outbox WHERE id = ?');
  store = { group: groupWriter(db), enqueue, record, done };
}

function send(id) {
  pool.request({ path: cfg.sinkPath, method: 'POST', headers, body: delivery }).then(
    async (r) => {
      const text = await r.body.text();
      if (store) store.group(() => (store.record.run(id, r.statusCode, delivery, text, Date.now()), store.done.run(id)), () => {});
    },
    () => {},
  );
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const reply = (id) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': String(answer.length) });
      res.end(answer);
      send(id);
    };
    if (store) store.group(() => Number(store.enqueue.run(cfg.sinkPath, delivery, Date.now()).lastInsertRowid), reply);
    else reply(0);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));

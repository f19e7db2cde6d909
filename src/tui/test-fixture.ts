import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeCore, openCore, type Core } from '../core.js';
import { createSubAccount, startTestServer, type TestServer } from '../../test/helpers/server.js';

/** A loopback HTTP consumer: `/ok…` answers 200, anything else 500. */
export interface Sink {
  url: string;
  received: number;
  close(): Promise<void>;
}

/** Starts the sink on 127.0.0.1 and a free port. */
export async function startSink(): Promise<Sink> {
  const sink: Sink = { url: '', received: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      sink.received++;
      const ok = req.url?.startsWith('/ok');
      res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain' });
      res.end(ok ? 'thanks' : 'sink says no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sink.close = () => new Promise((resolve) => server.close(() => resolve()));
  return sink;
}

/** Polls `check` until it answers true; fails after `timeoutMs`. */
export async function waitUntil(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A running server over a temporary database, filled through the API: a sub-account "Acme"
 * with a hook that succeeds ("CRM") and one that fails and gets auto-disabled ("Billing"),
 * one simulated call delivered to the sink, and a finished number job with one bad number.
 * `core` is a second connection on the same file, as `tel watch` in another process has.
 */
export interface WatchFixture {
  srv: TestServer;
  sink: Sink;
  acme: string;
  hooks: { crm: string; billing: string };
  jobId: string;
  core: Core;
  /** fires one simulated call on Acme; resolves when its deliveries are recorded */
  call(): Promise<void>;
  attemptCount(): number;
  close(): Promise<void>;
}

/** Builds the fixture (about half a second). */
export async function startWatchFixture(): Promise<WatchFixture> {
  const srv = await startTestServer();
  const sink = await startSink();
  const t = srv.adminToken;
  const must = async (p: Promise<{ status: number; text: string; body: any }>, what: string) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
    return r.body;
  };
  await must(
    srv.request('POST', '/v2/system_configs/webhooks', { token: t, data: { default: { attempt_failure_count: 1, retry_base_delay_ms: 0, breaker_failure_threshold: 1 } } }),
    'webhooks config',
  );
  const acme = (await createSubAccount(srv, srv.master.account_id, 'Acme')).id;
  const hook = (name: string, path: string) =>
    must(
      srv.request('PUT', `/v2/accounts/${acme}/webhooks`, {
        token: t,
        data: { name, uri: `${sink.url}${path}`, hook: 'channel_create', http_verb: 'post', format: 'json', retries: 0 },
      }),
      `hook ${name}`,
    );
  const crm = (await hook('CRM', '/ok')).data.id as string;
  const billing = (await hook('Billing', '/fail')).data.id as string;
  const core = openCore(srv.dbFile);
  const attemptCount = () =>
    (core.db.prepare("SELECT COUNT(*) AS n FROM delivery_attempts WHERE kind = 'webhook'").get() as { n: number }).n;
  const call = async () => {
    const before = attemptCount();
    const enabled = (srv.core.db.prepare('SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ? AND enabled = 1').get(acme) as { n: number }).n;
    await must(srv.request('PUT', `/v2/accounts/${acme}/simulations`, { token: t, data: { kind: 'call' } }), 'simulated call');
    await waitUntil(() => attemptCount() >= before + enabled, 'the call to be delivered');
  };
  await call();
  const resource = (await must(srv.request('PUT', `/v2/accounts/${acme}/resources`, { token: t, data: { name: 'Carrier A', gateways: [] } }), 'resource'))
    .data.id as string;
  const job = await must(
    srv.request('PUT', `/v2/accounts/${acme}/resources/jobs`, {
      token: t,
      data: { resource_id: resource, numbers: ['+14155550100', '+14155550101', 'not-a-number'] },
    }),
    'job',
  );
  const jobId = job.data.id as string;
  await waitUntil(() => {
    const r = core.db.prepare('SELECT status FROM resource_jobs WHERE id = ?').get(jobId) as { status: string } | undefined;
    return r?.status === 'complete' || r?.status === 'failed';
  }, 'the job to finish');
  return {
    srv,
    sink,
    acme,
    hooks: { crm, billing },
    jobId,
    core,
    call,
    attemptCount,
    async close() {
      closeCore(core);
      await sink.close();
      await srv.close();
    },
  };
}

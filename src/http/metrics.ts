import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import type { IncomingMessage } from 'node:http';
import type { Core } from '../core-type.js';
import { errors } from '../errors.js';
import { Counter, Histogram, header, labels, sample } from '../util/metrics.js';
import { authenticate } from '../modules/auth/service.js';
import { passwordHashes } from '../modules/users/credentials.js';
import { memoryCollections, memoryTrims } from './memory.js';
import { deliveryTries } from '../delivery/settle.js';
import { outboxBacklog } from '../delivery/outbox.js';
import { openBreakers } from '../delivery/breakers.js';
import { jobCounts, runningJobs } from '../jobs/store.js';
import { isLoopbackHost } from './host-guard.js';
import { storageMetrics } from '../store/health.js';

/** Requests answered, by route template, method and status. */
const httpRequests = new Counter('tel_http_requests_total', 'HTTP requests answered, by route (its path template; "" when no route matched), method and status.');

/** Time from a request's arrival to its answer, by route template and method. */
const httpSeconds = new Histogram('tel_http_request_duration_seconds', 'Time from reading a request to writing its answer, by route and method.', [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
]);

/** The label text of a route and method (a request's routed path computes it once). */
export function routeLabels(route: string, method: string): string {
  return labels({ route, method });
}

const withStatus = new Map<string, Map<number, string>>();

/** Counts one answered request. */
export function observeRequest(routeLabelText: string, status: number, seconds: number): void {
  let byStatus = withStatus.get(routeLabelText);
  if (!byStatus) withStatus.set(routeLabelText, (byStatus = new Map()));
  let l = byStatus.get(status);
  if (l === undefined) byStatus.set(status, (l = `${routeLabelText},status="${status}"`));
  httpRequests.inc(l);
  httpSeconds.observe(routeLabelText, seconds);
}

let loopDelay: ELDHistogram | undefined;
let monitoring = 0;

/** How often the event loop's delay is sampled: libuv's timer, every 10 ms. */
const LOOP_RESOLUTION_MS = 10;

/** Samples the event loop's delay while a server runs; answers the stop. */
export function monitorEventLoop(): () => void {
  if (monitoring++ === 0) {
    loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loopDelay.enable();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--monitoring === 0) loopDelay?.disable();
  };
}

function loopDelayText(): string {
  const h = loopDelay;
  const count = h?.count ?? 0;
  // the histogram records the time between the timer's runs: the delay is what exceeds its interval
  const late = (ns: number) => (count > 0 ? Math.max(0, ns / 1e9 - LOOP_RESOLUTION_MS / 1000) : 0);
  const name = 'tel_event_loop_delay_seconds';
  let out = header(name, 'summary', "How late the event loop ran a 10 ms timer (the wait a request may meet), since the server started.");
  for (const q of [0.5, 0.9, 0.99, 0.999]) out += sample(name, `quantile="${q}"`, late(h?.percentile(q * 100) ?? 0));
  out += sample(`${name}_sum`, '', count > 0 ? Math.max(0, (h!.mean / 1e9 - LOOP_RESOLUTION_MS / 1000) * count) : 0);
  out += sample(`${name}_count`, '', count);
  out += header('tel_event_loop_delay_max_seconds', 'gauge', 'The longest the event loop was late, since the server started.');
  out += sample('tel_event_loop_delay_max_seconds', '', late(h?.max ?? 0));
  // the same samples in buckets, so that a scraper (or a benchmark) can take the difference of two
  const hist = 'tel_event_loop_delay_histogram_seconds';
  out += header(hist, 'histogram', 'How late the event loop ran its 10 ms timer, in buckets, since the server started.');
  for (const le of LOOP_DELAY_BUCKETS) out += sample(`${hist}_bucket`, `le="${le}"`, h && count > 0 ? Math.round(count * shareUpTo(h, (le + LOOP_RESOLUTION_MS / 1000) * 1e9)) : 0);
  out += sample(`${hist}_bucket`, 'le="+Inf"', count);
  out += sample(`${hist}_sum`, '', count > 0 ? Math.max(0, (h!.mean / 1e9 - LOOP_RESOLUTION_MS / 1000) * count) : 0);
  out += sample(`${hist}_count`, '', count);
  return out;
}

/** Bucket bounds of the loop's delay, in seconds. */
const LOOP_DELAY_BUCKETS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2];

/** The share of a histogram's samples at or under `ns`, found by bisecting its percentiles. */
function shareUpTo(h: ELDHistogram, ns: number): number {
  if (h.max <= ns) return 1;
  if (h.min > ns) return 0;
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 24; i++) {
    const mid = (lo + hi) / 2;
    if (h.percentile(mid) <= ns) lo = mid;
    else hi = mid;
  }
  return lo / 100;
}

function gauge(name: string, help: string, values: [string, number][]): string {
  let out = header(name, 'gauge', help);
  for (const [l, v] of values) out += sample(name, l, v);
  return out;
}

/** What the server's file holds that is work in progress: the outbox's backlog, open breakers, jobs. */
function workText(core: Core): string {
  const backlog = outboxBacklog(core);
  const jobs = jobCounts(core);
  const running = runningJobs(core);
  return [
    gauge('tel_outbox_deliveries', 'Deliveries not yet done, by state: pending (due, or waiting for a retry) and sending.', [
      ['state="pending"', backlog.pending],
      ['state="sending"', backlog.sending],
    ]),
    gauge('tel_delivery_breakers_open', "Delivery targets whose circuit breaker is open (probed one try at a time).", [['', openBreakers(core)]]),
    gauge('tel_jobs', 'Number jobs, by status.', Object.entries(jobs).map(([status, n]) => [labels({ status }), n])),
    gauge('tel_job_numbers_processed', 'Numbers a running job has handled.', running.map((j) => [labels({ job: j.id, account: j.account_id }), j.processed])),
    gauge('tel_job_numbers_total', 'Numbers a running job has in all.', running.map((j) => [labels({ job: j.id, account: j.account_id }), j.total])),
  ].join('');
}

function processText(): string {
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  return [
    gauge('process_resident_memory_bytes', 'Resident memory of the process.', [['', mem.rss]]),
    gauge('nodejs_heap_size_used_bytes', "V8's heap in use.", [['', mem.heapUsed]]),
    gauge('nodejs_heap_size_total_bytes', "V8's heap reserved.", [['', mem.heapTotal]]),
    gauge('nodejs_external_memory_bytes', 'Memory held outside the heap by its objects (buffers).', [['', mem.external]]),
    header('process_cpu_seconds_total', 'counter', 'CPU time the process used, user and system.'),
    sample('process_cpu_seconds_total', '', (cpu.user + cpu.system) / 1e6),
    gauge('process_start_time_seconds', 'When the process started (unix seconds).', [['', Math.round((Date.now() - process.uptime() * 1000) / 1000)]]),
  ].join('');
}

/** The whole `GET /metrics` answer. */
export function metricsText(core: Core): string {
  return [
    loopDelayText(),
    httpRequests.render(),
    httpSeconds.render(),
    deliveryTries.render(),
    passwordHashes.render(),
    memoryCollections.render(),
    memoryTrims.render(),
    workText(core),
    storageMetrics(core.db),
    processText(),
  ].join('');
}

/**
 * Who may read `/metrics`: anyone with `tel serve --metrics`; otherwise a client on this machine
 * (a loopback peer), or one with a super-duper admin token. Throws the 401 or 403.
 */
export function checkMetricsAccess(core: Core, req: IncomingMessage, open: boolean): void {
  if (open || isLoopbackHost(req.socket.remoteAddress ?? '')) return;
  const header = req.headers['x-auth-token'];
  const bearer = /^bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
  const auth = authenticate(core, typeof header === 'string' && header ? header : bearer);
  if (!auth.isSuperduper) throw errors.forbidden('/metrics needs a super-duper admin token from another machine (or tel serve --metrics)');
}

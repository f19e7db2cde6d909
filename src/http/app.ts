import type { AddressInfo } from 'node:net';
import type { Core } from '../core-type.js';
import { MODULES } from '../modules/index.js';
import type { Worker } from '../modules/types.js';
import { apiRouter } from './api-router.js';
import { createApiServer } from './server.js';
import { hostGuard } from './host-guard.js';
import { startCheckpointer } from '../store/checkpointer.js';
import { SERVER_BUSY_TIMEOUT_MS, setBusyTimeout } from '../store/db.js';
import { announceServer, withdrawServer } from '../store/presence.js';
import { monitorEventLoop } from './metrics.js';
import { tidyMemory } from './memory.js';

/** A listening API server with its background workers. */
export interface RunningApi {
  url: string;
  port: number;
  /** stops accepting, finishes in-flight requests and work, stops the workers */
  close(): Promise<void>;
}

/** Options of a listening API. */
export interface ApiOptions {
  /** names besides loopback ones a loopback-bound server answers in `Host` */
  allowedHosts?: string[];
  /** `GET /metrics` for any client (`tel serve --metrics`); else loopback clients and super-duper admin tokens */
  openMetrics?: boolean;
}

/** Starts the HTTP API and every module's background workers on `core`. */
export async function startApi(core: Core, host: string, port: number, opts: ApiOptions = {}): Promise<RunningApi> {
  const server = createApiServer(core, apiRouter(), hostGuard(host, opts.allowedHosts), { openMetrics: opts.openMetrics });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  core.serving = true;
  const stopLoopMonitor = monitorEventLoop();
  const stopTidying = tidyMemory();
  setBusyTimeout(core.db, SERVER_BUSY_TIMEOUT_MS);
  announceServer(core.db);
  const checkpointer = startCheckpointer(core.db, core.file);
  const workers: Worker[] = [];
  for (const m of MODULES) {
    const w = m.start?.(core);
    if (w) workers.push(w);
  }
  const addr = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${addr.port}`,
    port: addr.port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // close() drops the connections idle at that moment; a keep-alive connection whose request
      // was in flight would stay open until its client lets go, so keep dropping idle ones.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      await Promise.all(workers.map((w) => w.stop()));
      const force = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearInterval(sweep);
      clearTimeout(force);
      await checkpointer.stop();
      stopLoopMonitor();
      stopTidying();
      try {
        withdrawServer(core.db);
      } catch {
        // a record left behind is ignored once its process is gone
      }
      core.serving = false;
    },
  };
}

import type { AddressInfo } from 'node:net';
import type { Core } from '../core-type.js';
import { MODULES } from '../modules/index.js';
import type { Worker } from '../modules/types.js';
import { apiRouter } from './api-router.js';
import { createApiServer } from './server.js';
import { hostGuard } from './host-guard.js';
import { originPolicy } from './cors.js';
import { CHECKPOINT_MAX_DEFER_MS, startCheckpointer, type Checkpointer } from '../store/checkpointer.js';
import { noteStorageFault, onStorageBack } from '../store/health.js';
import { SERVER_BUSY_TIMEOUT_MS, setBusyTimeout } from '../store/db.js';
import { announceServer, withdrawServer } from '../store/presence.js';
import { monitorEventLoop } from './metrics.js';
import { tidyMemory } from './memory.js';
import type { AccessEntry } from './access-log.js';

export { collectOnGrowth, collectWhenQuiet } from './memory.js';

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
  /** origins of web pages, besides this machine's and the allowed hosts', that may log in through a browser (`*`: any) */
  allowedOrigins?: string[];
  /** `GET /metrics` for any client (`tel serve --metrics`); else loopback clients and super-duper admin tokens */
  openMetrics?: boolean;
  /** called once a request's answer has ended (`tel serve --access-log`) */
  accessLog?: (entry: AccessEntry) => void;
}

/** The server could not listen where it was asked to (nothing else was started). */
export class ListenError extends Error {}

/**
 * Starts the HTTP API and every module's background workers on `core`. A start either completes
 * or leaves nothing behind: when anything after listening fails, the listener is closed and the
 * workers started so far are stopped before the error goes up. A disk that is full (or a file that
 * cannot be written) is no failure: the server answers reads, and writes once space returns.
 */
export async function startApi(core: Core, host: string, port: number, opts: ApiOptions = {}): Promise<RunningApi> {
  const server = createApiServer(core, apiRouter(), {
    guard: hostGuard(host, opts.allowedHosts),
    origins: originPolicy(opts.allowedOrigins, opts.allowedHosts),
    openMetrics: opts.openMetrics,
    accessLog: opts.accessLog,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new ListenError(`Cannot listen on ${host}:${port}: ${err.message}`)));
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const workers: Worker[] = [];
  let checkpointer: Checkpointer | undefined;
  let stopAnnouncing: (() => void) | undefined;
  const stopLoopMonitor = monitorEventLoop();
  const stopTidying = tidyMemory();
  /** what stopping does once the workers have stopped and no request is left */
  const release = async () => {
    await checkpointer?.stop();
    stopLoopMonitor();
    stopTidying();
    stopAnnouncing?.();
    try {
      withdrawServer(core.db);
    } catch {
      // a record left behind is ignored once its process is gone
    }
    core.serving = false;
  };
  try {
    core.serving = true;
    setBusyTimeout(core.db, SERVER_BUSY_TIMEOUT_MS);
    stopAnnouncing = announce(core, urlOf(server.address() as AddressInfo, host));
    // A server's own start-up commits (its presence record) wait for its start-up work to be over:
    // a checkpoint thread started beside its schemas' compilation made its peak RSS 10 MB higher.
    checkpointer = startCheckpointer(core.db, core.file, { startDelayMs: CHECKPOINT_MAX_DEFER_MS });
    for (const m of MODULES) {
      const w = m.start?.(core);
      if (w) workers.push(w);
    }
  } catch (err) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await Promise.all(workers.map((w) => w.stop())).catch(() => {});
    await release().catch(() => {});
    throw err;
  }
  const addr = server.address() as AddressInfo;
  return {
    url: urlOf(addr, host),
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
      await release();
    },
  };
}

/** The URL of a server listening at `addr` on `host`. */
function urlOf(addr: AddressInfo, host: string): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}

/**
 * Records that this process serves the file. On a disk that cannot take the record now, the
 * storage episode says so and the record is written once writes work again. Answers the function
 * that stops waiting for that.
 */
function announce(core: Core, url: string): () => void {
  try {
    announceServer(core.db, url);
    return () => {};
  } catch (err) {
    if (!noteStorageFault(core.db, err)) throw err;
    const stop = onStorageBack(core.db, () => {
      announceServer(core.db, url);
      stop();
    });
    return stop;
  }
}

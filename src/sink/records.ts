import type { Core } from '../core-type.js';
import { BUSY_TIMEOUT_MS, isBusy, stmt, transaction } from '../store/db.js';

/** One request `tel sink` received, as it is recorded (`sink_requests`). */
export interface SinkRecord {
  /** 0 until written */
  id: number;
  /** unix ms, when its body had been read */
  received: number;
  /** host:port of the sink that took it */
  listener: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** its start (bounded) */
  body: string;
  bodyBytes: number;
  eventId: string | null;
  hookId: string | null;
  accountId: string | null;
  verdict: Verdict;
  verdictDetail: string | null;
  /** null: never answered */
  status: number | null;
  reply: { headers: Record<string, string>; body: string } | null;
  answeredBy: string;
  latencyMs: number | null;
}

/** What checking a request's signature concluded. */
export type Verdict = 'valid' | 'invalid' | 'unsigned' | 'unknown hook';

/** Records written per transaction at most. */
const BATCH = 500;
/** A record waits this long at most for others to share its transaction. */
const BATCH_DELAY_MS = 25;
/** Tries of a batch that failed otherwise than on a busy file, before it is given up. */
const MAX_TRIES = 5;
/** How long a batch waits between tries while another process holds the file. */
const BUSY_RETRY_MS = 10;

function insert(core: Core, r: SinkRecord): number {
  const res = stmt(
    core.db,
    `INSERT INTO sink_requests (received, listener, method, path, query, headers, body, body_bytes, event_id, hook_id, account_id,
       verdict, verdict_detail, status, reply, answered_by, latency_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    r.received,
    r.listener,
    r.method,
    r.path,
    r.query,
    JSON.stringify(r.headers),
    r.body,
    r.bodyBytes,
    r.eventId,
    r.hookId,
    r.accountId,
    r.verdict,
    r.verdictDetail,
    r.status,
    r.reply ? JSON.stringify(r.reply) : null,
    r.answeredBy,
    r.latencyMs,
  );
  return Number(res.lastInsertRowid);
}

/**
 * Writes a sink's records in batches: a record waits up to BATCH_DELAY_MS for others to share its
 * transaction (one commit for hundreds of requests), so recording never costs the sink its speed.
 * `prepare` completes a batch's records inside that transaction (the sink judges signatures
 * there, reading each hook once a batch); `written` hears about each batch once it is in the
 * file, its records with their ids.
 */
export class SinkRecorder {
  private pending: SinkRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private tries = 0;
  /** when the batch now waiting first failed */
  private failingSince: number | undefined;

  constructor(
    private readonly core: Core,
    private readonly prepare: (batch: SinkRecord[]) => void,
    private readonly written: (batch: SinkRecord[]) => void,
  ) {}

  add(record: SinkRecord): void {
    this.pending.push(record);
    if (this.pending.length >= BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_DELAY_MS);
  }

  /**
   * Writes what waits, a batch at a time. A file another process holds (past the connection's busy
   * timeout, short while serving) is tried again every few milliseconds, the event loop free
   * meanwhile, for as long as a command would wait.
   */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, BATCH);
      try {
        transaction(this.core.db, () => {
          this.prepare(batch);
          for (const r of batch) r.id = insert(this.core, r);
        });
      } catch (err) {
        for (const r of batch) r.id = 0;
        this.failingSince ??= Date.now();
        const busy = isBusy(err);
        if (busy ? Date.now() - this.failingSince < BUSY_TIMEOUT_MS : ++this.tries < MAX_TRIES) {
          this.timer = setTimeout(() => this.flush(), busy ? BUSY_RETRY_MS : 200);
          return;
        }
        process.stderr.write(`tel: sink: ${batch.length} records lost: ${(err as Error)?.message ?? err}\n`);
      }
      this.tries = 0;
      this.failingSince = undefined;
      this.pending = this.pending.slice(batch.length);
      const kept = batch.filter((r) => r.id);
      if (kept.length > 0) this.written(kept);
    }
  }
}

/** Deletes records older than `retentionSeconds`; they are in id order, so only the old ones are read. */
export function pruneSinkRecords(core: Core, retentionSeconds: number, nowMs: number = Date.now()): number {
  const first = stmt(core.db, 'SELECT id FROM sink_requests WHERE received >= ? ORDER BY id LIMIT 1').get(nowMs - retentionSeconds * 1000) as
    | { id: number }
    | undefined;
  const below = first?.id ?? Number.MAX_SAFE_INTEGER;
  let removed = 0;
  // in bounded batches, so a large backlog never holds the write lock for long
  for (;;) {
    const n = Number(stmt(core.db, 'DELETE FROM sink_requests WHERE id IN (SELECT id FROM sink_requests WHERE id < ? ORDER BY id LIMIT 5000)').run(below).changes);
    removed += n;
    if (n < 5000) return removed;
  }
}

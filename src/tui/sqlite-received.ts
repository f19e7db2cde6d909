import type { Core } from '../core-type.js';
import { stmt } from '../store/db.js';
import type { AttemptDetail, RequestDetail, WatchedRequest, WatchSource } from './types.js';
import type { Verdict } from '../sink/records.js';

/** Which accounts' requests: the SQL condition on `r.account_id` and its parameters (see sqlite-source.ts). */
export interface ScopeSql {
  sql: string;
  args: string[];
}

interface RequestSql {
  id: number;
  received: number;
  listener: string;
  method: string;
  path: string;
  status: number | null;
  latency_ms: number | null;
  verdict: Verdict;
  account_id: string | null;
  account_name: string | null;
  hook_id: string | null;
  hook_name: string | null;
  event_id: string | null;
}

const REQUEST_COLS = `r.id, r.received, r.listener, r.method, r.path, r.status, r.latency_ms, r.verdict, r.account_id, ac.name AS account_name,
  r.hook_id, json_extract(w.doc, '$.name') AS hook_name, r.event_id`;
const REQUEST_FROM = 'FROM sink_requests r LEFT JOIN accounts ac ON ac.id = r.account_id LEFT JOIN webhooks w ON w.id = r.hook_id';

/** How long after a request arrived tel's attempt of it may be recorded (a try ends within its timeout). */
const ATTEMPT_WINDOW_MS = 10 * 60_000;

/** The follow queries of the Received pane: ranges of the primary key (or of the account index, scoped). */
export function requestQueries(scope: ScopeSql): { after: string; before: string; one: string } {
  return {
    after: `SELECT ${REQUEST_COLS} ${REQUEST_FROM} WHERE r.id > ?${scope.sql} ORDER BY r.id LIMIT ?`,
    before: `SELECT ${REQUEST_COLS} ${REQUEST_FROM} WHERE r.id < ?${scope.sql} ORDER BY r.id DESC LIMIT ?`,
    one: `SELECT ${REQUEST_COLS}, r.query, r.headers, r.body, r.body_bytes, r.verdict_detail, r.reply, r.answered_by ${REQUEST_FROM} WHERE r.id = ?${scope.sql}`,
  };
}

/**
 * tel's attempt of the try a request was: the same hook's first attempt of the event made at or
 * after the request arrived, within ATTEMPT_WINDOW_MS. Read through the hook's attempts index by
 * time, so it never reads more than that stretch of one hook's attempts — no index on event ids,
 * which would cost every delivery a random write.
 */
export const SENT_ATTEMPT_SQL = `SELECT a.id FROM delivery_attempts a
  WHERE a.source_id = ? AND a.event_id = ? AND a.created >= ? AND a.created <= ?
  ORDER BY a.created, a.id LIMIT 1`;

function toRequest(r: RequestSql): WatchedRequest {
  return {
    id: r.id,
    at: r.received,
    listener: r.listener,
    method: r.method,
    path: r.path,
    status: r.status,
    latencyMs: r.latency_ms,
    verdict: r.verdict,
    accountId: r.account_id,
    accountName: r.account_name ?? '',
    hookId: r.hook_id,
    hookName: r.hook_name ?? '',
    eventId: r.event_id,
  };
}

function json<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** The Received pane's reads over `sink_requests`; `attempt` reads tel's side of a try. */
export function requestReads(
  core: Core,
  scope: ScopeSql,
  attempt: (id: number) => AttemptDetail | undefined,
): Pick<WatchSource, 'requestsAfter' | 'requestsBefore' | 'request'> {
  const q = requestQueries(scope);
  return {
    requestsAfter(afterId, limit) {
      return (stmt(core.db, q.after).all(afterId, ...scope.args, limit) as unknown as RequestSql[]).map(toRequest);
    },
    requestsBefore(beforeId, limit) {
      return (stmt(core.db, q.before).all(beforeId, ...scope.args, limit) as unknown as RequestSql[]).map(toRequest);
    },
    request(id) {
      const r = stmt(core.db, q.one).get(id, ...scope.args) as
        | (RequestSql & { query: string; headers: string; body: string; body_bytes: number; verdict_detail: string | null; reply: string | null; answered_by: string })
        | undefined;
      if (!r) return undefined;
      const sentId =
        r.hook_id && r.event_id
          ? (stmt(core.db, SENT_ATTEMPT_SQL).get(r.hook_id, r.event_id, r.received, r.received + ATTEMPT_WINDOW_MS) as
              | { id: number }
              | undefined)
          : undefined;
      const detail: RequestDetail = {
        ...toRequest(r),
        query: r.query,
        headers: json(r.headers, {}),
        body: r.body,
        bodyBytes: r.body_bytes,
        verdictDetail: r.verdict_detail,
        reply: json(r.reply, null),
        answeredBy: r.answered_by,
        sent: sentId ? attempt(sentId.id) : undefined,
      };
      return detail;
    },
  };
}

import type { Core } from '../core-type.js';
import { unixMsToGregorian, type TimeWindow } from '../util/time.js';
import { wholeDoc } from '../util/doc-filter.js';
import type { DeliveryRow } from './outbox.js';
import type { TryOutcome } from './send.js';
import { stmt } from '../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../store/pages.js';

/** One row of `delivery_attempts`: one HTTP try of a delivery. */
export interface AttemptRow {
  id: number;
  delivery_id: number;
  event_id: string;
  kind: string;
  account_id: string;
  source_id: string | null;
  source_name: string | null;
  event_name: string;
  uri: string;
  method: string;
  result: 'success' | 'failure';
  reason: string | null;
  client_error: string | null;
  http_status: number | null;
  latency_ms: number | null;
  try: number;
  retries_left: number;
  req_headers: string | null;
  req_body: string | null;
  resp_headers: string | null;
  resp_body: string | null;
  /** 1 when what answered was on a public address; 0, or NULL for a try recorded before this was, otherwise */
  peer_public: number | null;
  created: number;
}

/**
 * An attempt's columns as readers see them: `req_body` is NULL in the row when the request's body
 * was the delivery's payload itself, which its outbox row holds (it outlives its attempts: both
 * are pruned by age, the outbox row by its last change).
 */
const ATTEMPT_SELECT = `SELECT a.id, a.delivery_id, a.event_id, a.kind, a.account_id, a.source_id, a.source_name, a.event_name, a.uri,
    a.method, a.result, a.reason, a.client_error, a.http_status, a.latency_ms, a.try, a.retries_left, a.req_headers,
    COALESCE(a.req_body, o.payload) AS req_body, a.resp_headers, a.resp_body, a.peer_public, a.created
  FROM delivery_attempts a LEFT JOIN outbox o ON o.id = a.delivery_id`;

/** Writes the attempt record of one try (inside the caller's transaction); answers its id. */
export function recordAttempt(core: Core, row: DeliveryRow, outcome: TryOutcome, tryNo: number, retriesLeft: number, at: number): number {
  const res = stmt(
    core.db,
    `INSERT INTO delivery_attempts (delivery_id, event_id, kind, account_id, source_id, source_name, event_name, uri, method, result,
       reason, client_error, http_status, latency_ms, try, retries_left, req_headers, req_body, resp_headers, resp_body, peer_public, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    row.id,
    row.event_id,
    row.kind,
    row.account_id,
    row.source_id,
    row.source_name,
    row.event_name,
    outcome.url,
    row.method,
    outcome.ok ? 'success' : 'failure',
    outcome.reason ?? null,
    outcome.clientError ?? null,
    outcome.status ?? null,
    outcome.latencyMs,
    tryNo,
    retriesLeft,
    JSON.stringify(outcome.reqHeaders),
    // a body that is the delivery's payload as stored (JSON posts) is not written twice: read back from the outbox
    outcome.reqBody === row.payload ? null : outcome.reqBody,
    outcome.respHeaders ? JSON.stringify(outcome.respHeaders) : null,
    outcome.respBody ?? null,
    outcome.publicPeer === undefined ? null : outcome.publicPeer ? 1 : 0,
    at,
  );
  return Number(res.lastInsertRowid);
}

/** An attempt as its listing's filters see it: as the caller is `shown` it, and when it was made (Kazoo keeps `webhook_attempt` documents). */
export function attemptFilterDoc(r: AttemptRow, shown: Record<string, unknown>): Record<string, unknown> {
  return wholeDoc(shown, { id: String(r.id), type: `${r.kind}_attempt`, accountId: r.account_id, created: r.created, modified: r.created });
}

/**
 * Which answers of endpoints a caller sees in attempt records: a hook can point at any address the
 * server reaches, so none for a plain user of the account, and for its admins only those of
 * endpoints on public addresses (with `deny_private_networks` off, the default, an internal
 * service's answer would be theirs to read); all of them for a super-duper admin and the operator.
 */
export type ResponsesShown = 'all' | 'public' | 'none';

/** What a caller of the API sees of endpoints' answers (see ResponsesShown). */
export function responsesShownTo(caller: { admin: boolean; superduper: boolean }): ResponsesShown {
  return caller.superduper ? 'all' : caller.admin ? 'public' : 'none';
}

/**
 * An attempt as the API shows it: the seed's fields, Kazoo's, and the request/response detail;
 * what the endpoint answered (headers, body) as `shown` lets the caller see it.
 */
// Stryker disable next-line StringLiteral: any value but 'none' and 'public' shows all, so the default's text shows in no answer
export function attemptJson(r: AttemptRow, shown: ResponsesShown = 'all'): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: r.id,
    hook_id: r.source_id,
    hook_name: r.source_name,
    hook_event: r.event_name,
    event_id: r.event_id,
    result: r.result,
    timestamp: unixMsToGregorian(r.created),
    uri: r.uri,
    method: r.method,
    try: r.try,
  };
  if (r.result === 'failure') {
    if (r.reason) out.reason = r.reason;
    if (r.client_error) out.client_error = r.client_error;
    out['retries left'] = r.retries_left;
    out.retries_left = r.retries_left;
  }
  if (r.http_status !== null) out.resp_status_code = String(r.http_status);
  if (r.latency_ms !== null) out.latency_ms = r.latency_ms;
  out.req_headers = r.req_headers ? JSON.parse(r.req_headers) : {};
  out.req_body = r.req_body ?? '';
  if (shown === 'none' || (shown === 'public' && r.peer_public !== 1)) return out;
  if (r.resp_headers) out.resp_headers = JSON.parse(r.resp_headers);
  if (r.resp_body !== null) out.resp_body = r.resp_body;
  return out;
}

/** Which attempts a listing shows: one kind's, of one account, maybe of one hook (or queue), in a window. */
export interface AttemptFilter extends TimeWindow {
  kind: string;
  accountId: string;
  /** the hook (or queue) the deliveries were for */
  sourceId?: string;
}

/**
 * Attempts newest first (by when they were made, as Kazoo's views key them), one page keyed by
 * `[created, id]`. Read from the index that holds the listing in that order: the account's, or
 * the hook's when one is named (a quiet hook's few rows are not looked for among its account's
 * many), so a page, or a time window anywhere in the log, reads only the rows it answers.
 */
export function listAttempts(core: Core, q: AttemptFilter & PageQuery<CompoundKey>): Page<AttemptRow, CompoundKey> {
  // `+` keeps SQLite off the account index when the hook's answers the listing
  // Stryker disable next-line StringLiteral: the `+` only steers SQLite's choice of index; the rows and their order are the same
  const by = q.sourceId ? '+' : '';
  const where = [`${by}a.kind = ?`, `${by}a.account_id = ?`];
  const args: (string | number)[] = [q.kind, q.accountId];
  if (q.sourceId) (where.push('a.source_id = ?'), args.push(q.sourceId));
  if (q.createdFrom !== undefined) (where.push('a.created >= ?'), args.push(q.createdFrom));
  // the page starts at its key: that is the window's end too (SQLite ranges an index on one bound
  // of a column, and the key's time is a later page's tighter one)
  const to = q.startKey === undefined ? q.createdTo : Math.min(q.createdTo ?? Infinity, Number(q.startKey[0]));
  if (to !== undefined) (where.push('a.created <= ?'), args.push(to));
  return readKeysetPage<AttemptRow>(
    core.db,
    { select: ATTEMPT_SELECT, where, args, order: ['a.created', 'a.id'], descending: true, keyOf: (r) => [r.created, r.id] },
    q,
  );
}

/** One attempt by id, or undefined. */
export function findAttempt(core: Core, id: number): AttemptRow | undefined {
  return stmt(core.db, `${ATTEMPT_SELECT} WHERE a.id = ?`).get(id) as AttemptRow | undefined;
}

/**
 * The last attempt (by id) made before `before` (unix ms), found in a few lookups of the primary
 * key: an attempt is recorded moments after its try ends, so ids grow with `created` (one recorded
 * out of turn is pruned at a later pass, never one too young). Undefined when none is that old.
 * An index on `created` would answer it too, at the cost of a write to it for every attempt.
 */
function lastIdMadeBefore(core: Core, before: number): number | undefined {
  const first = stmt(core.db, 'SELECT id, created FROM delivery_attempts ORDER BY id LIMIT 1').get() as { id: number; created: number } | undefined;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: searching on finds the first id, whose attempt the delete's own `created < ?` keeps
  if (!first || first.created >= before) return undefined;
  const atOrAfter = stmt(core.db, 'SELECT id, created FROM delivery_attempts WHERE id >= ? ORDER BY id LIMIT 1');
  let lo = first.id;
  let hi = (stmt(core.db, 'SELECT max(id) AS id FROM delivery_attempts').get() as { id: number }).id;
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    const r = atOrAfter.get(mid) as { id: number; created: number } | undefined;
    // Stryker disable next-line EqualityOperator: an attempt made at the cutoff itself is kept by the delete's own `created < ?`
    if (r && r.created < before) lo = r.id;
    else hi = mid - 1;
  }
  return lo;
}

/** Deletes attempts, finished deliveries and counted failures older than the retention; answers the attempts removed. */
export function pruneAttempts(core: Core, retentionSeconds: number, nowMs: number = Date.now()): number {
  const before = nowMs - retentionSeconds * 1000;
  let removed = 0;
  const last = lastIdMadeBefore(core, before);
  // In bounded batches, so a large backlog never holds the write lock for long.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,UpdateOperator: a cap of 5 million rows a pass; no log reaches it
  for (let i = 0; last !== undefined && i < 1000; i++) {
    const n = Number(
      stmt(core.db, 'DELETE FROM delivery_attempts WHERE id IN (SELECT id FROM delivery_attempts WHERE id <= ? AND created < ? ORDER BY id LIMIT 5000)')
        .run(last, before).changes,
    );
    removed += n;
    // Stryker disable next-line ConditionalExpression: without the early end the pass goes on deleting nothing, up to its cap; no row differs
    if (n < 5000) break;
  }
  for (let i = 0; i < 1000; i++) {
    const n = Number(
      // finished: delivered, failed or cancelled, in the words of the index (outbox_finished) that finds them
      stmt(core.db, `DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE status NOT IN ('pending', 'sending') AND modified < ? LIMIT 5000)`,
        )
        .run(before).changes,
    );
    // Stryker disable next-line ConditionalExpression: without the early end the pass goes on deleting nothing, up to its cap; no row differs
    if (n < 5000) break;
  }
  return removed;
}

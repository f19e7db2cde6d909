import type { Core } from '../core-type.js';
import { findAttempt } from '../delivery/attempts.js';
import { findJobById, jobErrors } from '../jobs/store.js';
import { reenableHook } from '../modules/webhooks/service.js';
import { stmt } from '../store/db.js';
import { diskFull } from '../store/health.js';
import { describeError } from '../errors.js';
import { breakerOf } from '../delivery/breakers.js';
import { cdrsOfCall } from '../modules/cdrs/store.js';
import type { AttemptDetail, CallLeg, WatchedAttempt, HookState, JobDetail, JobError, WatchedJob, ReenableOutcome, WatchSource } from './types.js';
import { requestReads } from './sqlite-received.js';

/** Which accounts the watch shows: all, one, or one and its descendants. */
export interface WatchScope {
  accountId?: string;
  descendants?: boolean;
}

interface AttemptSql {
  id: number;
  created: number;
  account_id: string;
  account_name: string | null;
  hook_id: string | null;
  hook_name: string | null;
  event_name: string;
  result: 'success' | 'failure';
  http_status: number | null;
  latency_ms: number | null;
  retries_left: number;
  reason: string | null;
  client_error: string | null;
}

interface JobSql {
  seq: number;
  id: string;
  account_id: string;
  account_name: string | null;
  resource_id: string;
  resource_name: string | null;
  status: string;
  total: number;
  successes: number;
  failures: number;
  created: number;
  modified: number;
}

const JOB_COLS = `j.seq, j.id, j.account_id, ac.name AS account_name, j.resource_id,
  (SELECT json_extract(d.doc, '$.name') FROM docs d WHERE d.id = j.resource_id AND d.kind = 'resource') AS resource_name,
  j.status, j.total, j.successes, j.failures, j.created, j.modified`;

const ATTEMPT_COLS = `a.id, a.created, a.account_id, ac.name AS account_name, a.source_id AS hook_id, a.source_name AS hook_name, a.event_name,
  a.result, a.http_status, a.latency_ms, a.retries_left, a.reason, a.client_error`;

function toAttempt(r: AttemptSql): WatchedAttempt {
  return {
    id: r.id,
    at: r.created,
    accountId: r.account_id,
    accountName: r.account_name ?? '',
    hookId: r.hook_id ?? '',
    hookName: r.hook_name ?? '',
    event: r.event_name,
    result: r.result,
    httpStatus: r.http_status,
    latencyMs: r.latency_ms,
    // The API shows retries left on failures only; a success has none to come.
    retriesLeft: r.result === 'failure' ? r.retries_left : null,
    error: r.client_error ?? r.reason,
  };
}

function toJob(r: JobSql): WatchedJob {
  return {
    seq: r.seq,
    id: r.id,
    accountId: r.account_id,
    accountName: r.account_name ?? '',
    resourceId: r.resource_id,
    resourceName: r.resource_name,
    status: r.status,
    total: r.total,
    successes: r.successes,
    failures: r.failures,
    createdAt: r.created,
    modifiedAt: r.modified,
  };
}

function parseHeaders(text: string | null): Record<string, string> | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Record<string, string>;
  } catch {
    return null;
  }
}

/** The SQL condition (on `column`) that keeps rows of the scope's accounts, and its parameters. */
function scopeCondition(column: string, scope: WatchScope): { sql: string; args: string[] } {
  if (!scope.accountId) return { sql: '', args: [] };
  if (!scope.descendants) return { sql: ` AND ${column} = ?`, args: [scope.accountId] };
  // Evaluated on every read, so sub-accounts created while watching are included.
  return {
    sql: ` AND ${column} IN (SELECT ? UNION ALL SELECT account_id FROM account_tree WHERE ancestor_id = ?)`,
    args: [scope.accountId, scope.accountId],
  };
}

/** The SQL of the reads made while following, with the scope's parameters (tests check their plans). */
export interface FollowQueries {
  attemptsAfter: string;
  attemptsBefore: string;
  jobsChanged: string;
  attemptArgs: string[];
  jobArgs: string[];
}

/** Builds the follow queries of a scope: every one an indexed range or lookup, never a table scan. */
export function followQueries(scope: WatchScope): FollowQueries {
  const attemptScope = scopeCondition('a.account_id', scope);
  const jobScope = scopeCondition('j.account_id', scope);
  // Unscoped, `+a.kind` keeps SQLite on the primary key (`id > ?` is the whole point);
  // scoped, the (kind, account_id, id) index answers the range per account.
  const kind = scope.accountId ? 'a.kind' : '+a.kind';
  const from = `FROM delivery_attempts a LEFT JOIN accounts ac ON ac.id = a.account_id WHERE ${kind} = 'webhook'`;
  return {
    attemptsAfter: `SELECT ${ATTEMPT_COLS} ${from} AND a.id > ?${attemptScope.sql} ORDER BY a.id LIMIT ?`,
    attemptsBefore: `SELECT ${ATTEMPT_COLS} ${from} AND a.id < ?${attemptScope.sql} ORDER BY a.id DESC LIMIT ?`,
    // New jobs by key, unfinished ones by the status index, and the ones last seen unfinished.
    jobsChanged: `SELECT ${JOB_COLS} FROM resource_jobs j LEFT JOIN accounts ac ON ac.id = j.account_id
      WHERE j.seq IN (SELECT seq FROM resource_jobs WHERE seq > ?
          UNION SELECT seq FROM resource_jobs WHERE status IN ('pending', 'running')
          UNION SELECT value FROM json_each(?))${jobScope.sql}
      ORDER BY j.seq`,
    attemptArgs: attemptScope.args,
    jobArgs: jobScope.args,
  };
}

/** The `call_id` a delivery's body names (JSON, or a form as `get` and form-data hooks send it). */
function callIdOf(body: string | null): string | undefined {
  if (!body) return undefined;
  try {
    const v = (JSON.parse(body) as Record<string, unknown>).call_id;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return new URLSearchParams(body).get('call_id') ?? undefined;
  }
}

/**
 * The watch's reads over a tel database: webhook attempts (`delivery_attempts`, followed by
 * id), number jobs (`resource_jobs`, followed by `seq`) and what `tel sink` received
 * (`sink_requests`, followed by id; see sqlite-received.ts). It writes nothing, except
 * through `reenableHook`, which goes through the webhooks service.
 */
export function openWatchSource(core: Core, scope: WatchScope = {}): WatchSource {
  const fq = followQueries(scope);
  const attemptScope = scopeCondition('a.account_id', scope);
  const jobScope = scopeCondition('j.account_id', scope);
  const q = (sql: string) => stmt(core.db, sql);

  const hookState = (hookId: string): HookState | undefined => {
    const h = q(`SELECT id, account_id, enabled, disable_reason, json_extract(doc, '$.name') AS name FROM webhooks WHERE id = ?`).get(hookId) as
      | { id: string; account_id: string; enabled: number; disable_reason: string | null; name: string | null }
      | undefined;
    if (!h) return undefined;
    const breaker = breakerOf(core, h.id);
    return { id: h.id, accountId: h.account_id, name: h.name ?? '', enabled: h.enabled === 1, disableReason: h.disable_reason, ...(breaker ? { breaker } : {}) };
  };

  /** The legs of the call a channel event's delivery is about (its body names the call). */
  const callOf = (accountId: string, body: string | null, at: number): CallLeg[] => {
    const callId = callIdOf(body);
    if (!callId) return [];
    return cdrsOfCall(core, accountId, callId, at).map((c) => ({
      cdrId: c.id,
      callId: String(c.doc.call_id),
      direction: String(c.doc.call_direction),
      durationSeconds: Number(c.doc.duration_seconds),
      billingSeconds: Number(c.doc.billing_seconds),
      hangupCause: String(c.doc.hangup_cause),
    }));
  };

  const attempt = (id: number): AttemptDetail | undefined => {
    const row = q(
      `SELECT ${ATTEMPT_COLS} FROM delivery_attempts a LEFT JOIN accounts ac ON ac.id = a.account_id
       WHERE a.id = ? AND a.kind = 'webhook'${attemptScope.sql}`,
    ).get(id, ...attemptScope.args) as AttemptSql | undefined;
    const full = row && findAttempt(core, id);
    if (!row || !full) return undefined;
    return {
      ...toAttempt(row),
      method: full.method,
      uri: full.uri,
      requestHeaders: parseHeaders(full.req_headers) ?? {},
      requestBody: full.req_body ?? '',
      responseHeaders: parseHeaders(full.resp_headers),
      responseBody: full.resp_body,
      hook: full.source_id ? hookState(full.source_id) : undefined,
      ...(row.event_name.startsWith('channel_') ? { call: callOf(row.account_id, full.req_body, row.created) } : {}),
    };
  };

  return {
    ...requestReads(core, scopeCondition('r.account_id', scope), attempt),
    attempt,

    attemptsAfter(afterId, limit) {
      return (q(fq.attemptsAfter).all(afterId, ...fq.attemptArgs, limit) as unknown as AttemptSql[]).map(toAttempt);
    },

    attemptsBefore(beforeId, limit) {
      return (q(fq.attemptsBefore).all(beforeId, ...fq.attemptArgs, limit) as unknown as AttemptSql[]).map(toAttempt);
    },

    jobsChanged(afterSeq, watching) {
      return (q(fq.jobsChanged).all(afterSeq, JSON.stringify(watching), ...fq.jobArgs) as unknown as JobSql[]).map(toJob);
    },

    job(id) {
      const row = q(
        `SELECT ${JOB_COLS} FROM resource_jobs j LEFT JOIN accounts ac ON ac.id = j.account_id WHERE j.id = ?${jobScope.sql}`,
      ).get(id, ...jobScope.args) as JobSql | undefined;
      const job = row && findJobById(core, id);
      if (!row || !job) return undefined;
      const errors: JobError[] = [...jobErrors(core, job)].flat();
      const detail: JobDetail = { ...toJob(row), errors };
      return detail;
    },

    reenableHook(accountId, hookId): ReenableOutcome {
      const hook = hookState(hookId);
      if (!hook || hook.accountId !== accountId) return { ok: false, message: `Hook ${hookId} no longer exists.` };
      const name = hook.name || hook.id;
      if (hook.enabled) return { ok: false, message: `Hook "${name}" is enabled already.` };
      if (!hook.disableReason) {
        return { ok: false, message: `Hook "${name}" was disabled by hand; r re-enables auto-disabled hooks only (tel webhooks enable does the rest).` };
      }
      try {
        reenableHook(core, accountId, hookId);
      } catch (err) {
        return { ok: false, message: `Hook "${name}" was not re-enabled: ${describeError(err)}` };
      }
      return { ok: true, message: `Re-enabled hook "${name}" (it was: ${hook.disableReason}).` };
    },

    dataVersion() {
      return (q('PRAGMA data_version').get() as { data_version: number }).data_version;
    },

    diskFull() {
      const file = core.db.location();
      return file !== null && diskFull(file);
    },
  };
}

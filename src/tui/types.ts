/** One webhook delivery attempt as the watch shows it (a line of the Attempts pane; the stored row is delivery/attempts.ts' AttemptRow). */
export interface WatchedAttempt {
  /** the attempts table's autoincrement key: newer attempts have larger ids */
  id: number;
  /** when the attempt was made, Unix ms */
  at: number;
  accountId: string;
  accountName: string;
  hookId: string;
  hookName: string;
  event: string;
  result: 'success' | 'failure';
  httpStatus: number | null;
  latencyMs: number | null;
  /** retries still to come after this attempt (null when none apply, e.g. on success) */
  retriesLeft: number | null;
  error: string | null;
}

/** The request a hook's attempt sent and what came back. */
export interface AttemptDetail extends WatchedAttempt {
  method: string;
  uri: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  /** the hook as it is now (it may have been disabled or deleted since) */
  hook: HookState | undefined;
  /** a call's channel event: the CDRs of its legs (none while the call is up) */
  call?: CallLeg[];
}

/** One leg of a call, as its CDR tells it. */
export interface CallLeg {
  cdrId: string;
  callId: string;
  direction: string;
  durationSeconds: number;
  billingSeconds: number;
  hangupCause: string;
}

import type { BreakerState } from '../delivery/breakers.js';
import type { Verdict } from '../sink/records.js';

/** A webhook's current state, for the detail view and the `r` key. */
export interface HookState {
  id: string;
  accountId: string;
  name: string;
  enabled: boolean;
  /** set when the hook was disabled automatically (too many failures) */
  disableReason: string | null;
  /** its delivery circuit breaker, once the sender recorded one */
  breaker?: BreakerState;
}

/** A bulk number job as the watch shows it (a line of the Jobs pane; the stored row is jobs/store.ts' JobRow). */
export interface WatchedJob {
  /** the jobs table's autoincrement key: newer jobs have larger ones */
  seq: number;
  id: string;
  accountId: string;
  accountName: string;
  resourceId: string;
  resourceName: string | null;
  status: string;
  total: number;
  successes: number;
  failures: number;
  /** Unix ms */
  createdAt: number;
  /** Unix ms; changes on every processed number */
  modifiedAt: number;
}

/** One number a job could not add, and why. */
export interface JobError {
  number: string;
  reason: string;
  message: string | null;
}

/** A job with its per-number errors. */
export interface JobDetail extends WatchedJob {
  errors: JobError[];
}

/** One request `tel sink` received, as the watch shows it (a line of the Received pane; the stored row is sink/records.ts' SinkRecord). */
export interface WatchedRequest {
  /** the sink table's autoincrement key: newer requests have larger ids */
  id: number;
  /** when it arrived, Unix ms */
  at: number;
  /** host:port of the sink that took it */
  listener: string;
  method: string;
  path: string;
  /** the status answered; null when it was never answered (`--hang`) */
  status: number | null;
  latencyMs: number | null;
  verdict: Verdict;
  accountId: string | null;
  accountName: string;
  hookId: string | null;
  hookName: string;
  eventId: string | null;
}

/** A received request whole, beside the attempt tel recorded of the same try. */
export interface RequestDetail extends WatchedRequest {
  query: string;
  headers: Record<string, string>;
  body: string;
  bodyBytes: number;
  verdictDetail: string | null;
  reply: { headers: Record<string, string>; body: string } | null;
  /** what chose the answer (`default: ok`, `rule /crm: status`, `default: hang`, …) */
  answeredBy: string;
  /** tel's attempt of this very try (same hook and event, recorded once it ended), when there is one */
  sent: AttemptDetail | undefined;
}

/** What `r` did. */
export interface ReenableOutcome {
  ok: boolean;
  message: string;
}

/**
 * Where the watch reads from. The database implementation lives in `sqlite-source.ts`;
 * every method is a short indexed query, never a scan of a whole table.
 */
export interface WatchSource {
  /** Attempts with an id above `afterId`, oldest first, at most `limit`. */
  attemptsAfter(afterId: number, limit: number): WatchedAttempt[];
  /** Attempts with an id below `beforeId`, newest first, at most `limit` (history, loaded in chunks). */
  attemptsBefore(beforeId: number, limit: number): WatchedAttempt[];
  /**
   * Jobs that may have changed: those with a key above `afterSeq` (new), those still
   * pending or running, and those of `watching` (unfinished when last seen, so their
   * final counts are read once more). `afterSeq` 0 reads every job.
   */
  jobsChanged(afterSeq: number, watching: number[]): WatchedJob[];
  /** Received requests with an id above `afterId`, oldest first, at most `limit`. */
  requestsAfter(afterId: number, limit: number): WatchedRequest[];
  /** Received requests with an id below `beforeId`, newest first, at most `limit`. */
  requestsBefore(beforeId: number, limit: number): WatchedRequest[];
  /** One received request with tel's attempt of the same try, if it still exists. */
  request(id: number): RequestDetail | undefined;
  /** One attempt with its request and response, if it still exists. */
  attempt(id: number): AttemptDetail | undefined;
  /** One job with its per-number errors, if it still exists. */
  job(id: string): JobDetail | undefined;
  /** Re-enables an auto-disabled hook through the webhooks service (the only write the watch makes). */
  reenableHook(accountId: string, hookId: string): ReenableOutcome;
  /** A number that changes whenever another connection commits (cheap; polled often). */
  dataVersion(): number;
  /** True while the disk holding the database has next to no space left: a server's writes fail, its deliveries and jobs wait. */
  diskFull(): boolean;
}

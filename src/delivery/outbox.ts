import type { Core } from '../core-type.js';
import type { Db } from '../store/db.js';
import { onSettle, stmt, transaction } from '../store/db.js';
import { newId } from '../util/ids.js';
import { PairMemo } from '../util/memo.js';

/** HTTP verbs a delivery may use. */
export type DeliveryMethod = 'get' | 'post' | 'put';

/** Body encodings for post/put (a get always sends the payload as a query string). */
export type DeliveryFormat = 'json' | 'form-data';

/** What a caller asks the outbox to deliver. */
export type DeliveryInput = DeliveryTarget & DeliveryBody;

/**
 * The fields sent (a query string for get, the body for post/put): the object, with its JSON when
 * the caller has it already, or the JSON alone (a caller that made the text need not make the object).
 */
export type DeliveryBody = { payload: Record<string, unknown>; payloadJson?: string } | { payload?: undefined; payloadJson: string };

/** Where and how a delivery goes, besides its body. */
export interface DeliveryTarget {
  /** who produced it: `webhook`, `queue`, … (attempt listings filter on it) */
  kind: string;
  /** the account owning the hook (or queue): attempts are listed under it */
  accountId: string;
  /** the webhook (or queue) the delivery is for */
  sourceId?: string;
  /** its name, shown in attempt records and the live view */
  sourceName?: string;
  /** the event name (`channel_create`, `object`, `pickup`, …) */
  eventName: string;
  /** absolute http(s) URL */
  url: string;
  method: DeliveryMethod;
  /** body encoding for post/put; default `json` */
  format?: DeliveryFormat;
  /** extra tries after the first failure; default 0 */
  retries?: number;
  /** extra request headers (e.g. `X-Hook-ID`) */
  headers?: Record<string, string>;
  /** `headers` as JSON, when the caller has it already (a hook's are the same for all its deliveries) */
  headersJson?: string;
  /** Standard Webhooks secret (`whsec_…` or base64): signs every try */
  secret?: string;
  /** a rotated-out secret that also signs (a second `v1,` signature) tries made before `until` (unix ms) */
  previousSecret?: { secret: string; until: number };
  /** tries of the delivery's target are paced to this many a second; default not paced */
  ratePerS?: number;
  /** the stable id receivers de-duplicate on; default a new one */
  eventId?: string;
  /** not before this unix ms; default now */
  dueAt?: number;
}

/** One row of the outbox, as the sender works with it. */
export interface DeliveryRow {
  id: number;
  event_id: string;
  kind: string;
  account_id: string;
  source_id: string | null;
  source_name: string | null;
  event_name: string;
  url: string;
  target: string;
  method: DeliveryMethod;
  format: DeliveryFormat;
  payload: string;
  headers: string;
  secret: string | null;
  previous_secret: string | null;
  /** unix ms: tries from then on are signed with `secret` only */
  previous_secret_until: number | null;
  /** tries a second the target is paced to, or null */
  rate_per_s: number | null;
  retries: number;
  tries: number;
  status: 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled';
  due_at: number;
  owner: string | null;
  lease_until: number | null;
  created: number;
  modified: number;
}

const wakers = new WeakMap<Db, Set<() => void>>();

/** Lets a sender in this process hear about new pending deliveries at once (others poll). */
export function onEnqueue(core: Core, wake: () => void): () => void {
  let set = wakers.get(core.db);
  if (!set) wakers.set(core.db, (set = new Set()));
  set.add(wake);
  return () => set.delete(wake);
}

function wakeSenders(core: Core): void {
  const set = wakers.get(core.db);
  if (!set || set.size === 0) return;
  for (const w of set) w();
}

/** A row's claim, given when it is written: it is then inserted as being sent by `owner`. */
export interface InlineClaim {
  owner: string;
  leaseUntil: number;
}

/**
 * A sender in this process that takes deliveries as they are enqueued, already claimed, instead
 * of finding them again with a claim query: `reserve` says whether it has room for one more row of
 * a target now (else the row waits on disk, pending, and is claimed later in its turn).
 */
export interface InlineClaimer {
  reserve(target: string): InlineClaim | undefined;
  /** the reserved row was committed: it is the claimer's to send */
  accept(row: DeliveryRow): void;
  /** the reserved row was rolled back */
  release(target: string): void;
}

const claimers = new WeakMap<Db, InlineClaimer>();

/** Makes `claimer` take this process's new deliveries on `core`'s file; answers the detach. */
export function attachClaimer(core: Core, claimer: InlineClaimer): () => void {
  claimers.set(core.db, claimer);
  return () => {
    if (claimers.get(core.db) === claimer) claimers.delete(core.db);
  };
}

/**
 * The target a delivery queues behind: its endpoint (the URL without query or fragment) and the
 * hook (or queue) it belongs to. Concurrency, queueing and the circuit breaker are per target, so
 * an endpoint that hangs holds only its own deliveries, even beside live ones on the same host and
 * port; connections are still pooled per origin.
 */
export function targetOf(url: string, sourceId?: string | null): string {
  return targets.get(sourceId ?? '', url, makeTarget);
}

function makeTarget(sourceId: string, url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}${sourceId ? ` ${sourceId}` : ''}`;
}

/** Targets by source and URL: a hook's deliveries all have the same (parsing a URL costs more than a lookup). */
const targets = new PairMemo<string>(10_000);

/**
 * Queues one outgoing HTTP delivery in the durable outbox and answers its id.
 *
 * This is how anything in tel calls out over HTTP (webhooks, queue notifications, …): the row
 * is written in the caller's transaction (so it commits, or rolls back, with the change that
 * caused it) and a running `tel serve` sends it — at once when enqueued in the server process,
 * within a poll interval when enqueued by another process such as the offline CLI. A get sends
 * `payload` as a query string (appended with `&` when the URL has one); post/put send it as
 * JSON or url-encoded form data. Any 2xx is success; anything else is retried up to `retries`
 * more times with exponential backoff (429/503 `Retry-After` honoured within bounds). Each try
 * is recorded in `delivery_attempts` under `kind`, `accountId` and `sourceId`; a server killed
 * mid-delivery sends the rows again on restart, with the same `X-Event-ID` header. A kind may
 * declare a `DeliveryKind` (./kinds.ts, wired in core.ts): skip rows no longer wanted, react when a
 * delivery fails for good.
 */
export function enqueueDelivery(core: Core, input: DeliveryInput): number {
  const now = Date.now();
  const dueAt = input.dueAt ?? now;
  const target = targetOf(input.url, input.sourceId);
  const claimer = dueAt <= now ? claimers.get(core.db) : undefined;
  return transaction(core.db, () => {
    const claim = claimer?.reserve(target);
    const row: DeliveryRow = {
      id: 0,
      event_id: input.eventId ?? newId(),
      kind: input.kind,
      account_id: input.accountId,
      source_id: input.sourceId ?? null,
      source_name: input.sourceName ?? null,
      event_name: input.eventName,
      url: input.url,
      target,
      method: input.method,
      format: input.format ?? 'json',
      payload: input.payloadJson ?? JSON.stringify(input.payload),
      headers: input.headersJson ?? JSON.stringify(input.headers ?? {}),
      secret: input.secret ?? null,
      previous_secret: input.previousSecret?.secret ?? null,
      previous_secret_until: input.previousSecret?.until ?? null,
      rate_per_s: input.ratePerS ?? null,
      retries: Math.max(0, Math.floor(input.retries ?? 0)),
      tries: 0,
      status: claim ? 'sending' : 'pending',
      due_at: dueAt,
      owner: claim?.owner ?? null,
      lease_until: claim?.leaseUntil ?? null,
      created: now,
      modified: now,
    };
    const res = stmt(
      core.db,
      `INSERT INTO outbox (event_id, kind, account_id, source_id, source_name, event_name, url, target, method, format,
         payload, headers, secret, previous_secret, previous_secret_until, rate_per_s, retries, status, due_at, owner, lease_until,
         created, modified)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.event_id,
      row.kind,
      row.account_id,
      row.source_id,
      row.source_name,
      row.event_name,
      row.url,
      row.target,
      row.method,
      row.format,
      row.payload,
      row.headers,
      row.secret,
      row.previous_secret,
      row.previous_secret_until,
      row.rate_per_s,
      row.retries,
      row.status,
      row.due_at,
      row.owner,
      row.lease_until,
      row.created,
      row.modified,
    );
    row.id = Number(res.lastInsertRowid);
    if (claim) onSettle(core.db, { commit: () => claimer!.accept(row), rollback: () => claimer!.release(target) });
    // a claimer that had no room knows the row waits (it claims it in turn); others are woken
    else if (!claimer) onSettle(core.db, { commit: () => wakeSenders(core) });
    return row.id;
  });
}

/** One delivery by id, or undefined. */
export function findDelivery(core: Core, id: number): DeliveryRow | undefined {
  return stmt(core.db, 'SELECT * FROM outbox WHERE id = ?').get(id) as DeliveryRow | undefined;
}

/** Which deliveries `deliveriesMade` lists: one kind's, of one account, maybe of one source, made in a window. */
export interface DeliveryFilter {
  kind: string;
  accountId: string;
  sourceId?: string;
  /** made at or after (unix ms) */
  createdFrom: number;
  /** made at or before (unix ms); default now */
  createdTo?: number;
}

/** A delivery as a listing of many names it: enough to choose among them before reading any whole. */
export interface DeliveryHead {
  id: number;
  event_id: string;
  source_id: string | null;
  status: DeliveryRow['status'];
}

/** Deliveries made in a window, oldest first, by the account index (never the whole outbox). */
export function deliveriesMade(core: Core, f: DeliveryFilter): DeliveryHead[] {
  const source = f.sourceId === undefined ? '' : ' AND source_id = ?';
  return stmt(
    core.db,
    `SELECT id, event_id, source_id, status FROM outbox WHERE account_id = ? AND created >= ? AND created <= ? AND kind = ?${source} ORDER BY id`,
  ).all(f.accountId, f.createdFrom, f.createdTo ?? Date.now(), f.kind, ...(f.sourceId === undefined ? [] : [f.sourceId])) as unknown as DeliveryHead[];
}

/**
 * The source of the delivery being sent with this event id (a try under way), or undefined: how a
 * receiver that got a request without its source's header finds it. Read through the index of the
 * rows being sent, which holds only those in flight or queued in a sender's memory.
 */
export function sendingSource(core: Core, eventId: string): string | undefined {
  const r = stmt(core.db, "SELECT source_id FROM outbox WHERE status = 'sending' AND event_id = ? LIMIT 1").get(eventId) as
    | { source_id: string | null }
    | undefined;
  return r?.source_id ?? undefined;
}

/** Deliveries not yet done, by state: `pending` (due or waiting for a retry) and `sending`; read through their partial indexes. */
export function outboxBacklog(core: Core): { pending: number; sending: number } {
  const count = (status: string) => (stmt(core.db, `SELECT count(*) AS n FROM outbox WHERE status = '${status}'`).get() as { n: number }).n;
  return { pending: count('pending'), sending: count('sending') };
}

import type { WatchedAttempt, WatchedJob, WatchedRequest } from './types.js';

/** One word of a `/` filter: `field:value`, or a bare value matched against every field. */
export interface FilterTerm {
  field: string | null;
  value: string;
}

/** The fields a filter word may name, per pane. */
export const ATTEMPT_FIELDS = ['account', 'hook', 'result', 'status', 'event'] as const;
export const JOB_FIELDS = ['account', 'resource', 'status', 'id'] as const;
export const REQUEST_FIELDS = ['account', 'hook', 'verdict', 'status', 'path', 'method', 'event'] as const;

/** Splits filter text into terms (words AND-ed; `field:value` narrows a word to one field). */
export function parseFilter(text: string): FilterTerm[] {
  const terms: FilterTerm[] = [];
  for (const word of text.trim().toLowerCase().split(/\s+/)) {
    if (!word) continue;
    const m = /^([a-z_]+)[:=](.*)$/.exec(word);
    if (m && m[2] !== '') terms.push({ field: m[1], value: m[2] });
    else terms.push({ field: null, value: word });
  }
  return terms;
}

/** Fields a filter word names that this pane does not know (to tell the user). */
export function unknownFields(terms: FilterTerm[], known: readonly string[]): string[] {
  return terms.filter((t) => t.field !== null && !known.includes(t.field)).map((t) => t.field!);
}

function has(haystack: string | null | undefined, needle: string): boolean {
  return haystack != null && haystack.toLowerCase().includes(needle);
}

/** `5xx`, `50x` or a plain prefix like `50` match HTTP statuses. */
function statusMatches(status: number | null, value: string): boolean {
  if (status === null) return value === 'none' || value === '-';
  const s = String(status);
  if (/^[0-9x]+$/.test(value) && value.includes('x')) {
    return value.length === s.length && [...value].every((c, i) => c === 'x' || c === s[i]);
  }
  return s.startsWith(value);
}

/** The `account:` and `hook:` words, which attempts and received requests answer alike. */
function ownerField(row: { accountId: string | null; accountName: string; hookId: string | null; hookName: string }, field: 'account' | 'hook', value: string): boolean {
  return field === 'account' ? has(row.accountId, value) || has(row.accountName, value) : has(row.hookId, value) || has(row.hookName, value);
}

function attemptField(row: WatchedAttempt, field: string, value: string): boolean {
  switch (field) {
    case 'account':
    case 'hook':
      return ownerField(row, field, value);
    case 'result':
      return row.result.startsWith(value);
    case 'status':
      return statusMatches(row.httpStatus, value);
    case 'event':
      return has(row.event, value);
    default:
      return false;
  }
}

/** True when an attempt passes every term (and is a failure, with `failuresOnly`). */
export function attemptMatches(row: WatchedAttempt, terms: FilterTerm[], failuresOnly: boolean): boolean {
  if (failuresOnly && row.result !== 'failure') return false;
  for (const t of terms) {
    if (t.field !== null) {
      if (!attemptField(row, t.field, t.value)) return false;
    } else if (!ATTEMPT_FIELDS.some((f) => attemptField(row, f, t.value)) && !has(row.error, t.value)) {
      return false;
    }
  }
  return true;
}

function jobField(row: WatchedJob, field: string, value: string): boolean {
  switch (field) {
    case 'account':
      return has(row.accountId, value) || has(row.accountName, value);
    case 'resource':
      return has(row.resourceId, value) || has(row.resourceName, value);
    case 'status':
      return row.status.startsWith(value);
    case 'id':
      return has(row.id, value);
    default:
      return false;
  }
}

/** True when a job passes every term (and has failed numbers or failed, with `failuresOnly`). */
export function jobMatches(row: WatchedJob, terms: FilterTerm[], failuresOnly: boolean): boolean {
  if (failuresOnly && row.failures === 0 && row.status !== 'failed') return false;
  for (const t of terms) {
    if (t.field !== null) {
      if (!jobField(row, t.field, t.value)) return false;
    } else if (!JOB_FIELDS.some((f) => jobField(row, f, t.value))) {
      return false;
    }
  }
  return true;
}

/** True when a received request went wrong: a signature that does not check out, or no 2xx answer. */
export function requestFailed(r: WatchedRequest): boolean {
  return r.verdict === 'invalid' || r.verdict === 'unknown hook' || r.status === null || r.status < 200 || r.status >= 300;
}

function requestField(row: WatchedRequest, field: string, value: string): boolean {
  switch (field) {
    case 'account':
    case 'hook':
      return ownerField(row, field, value);
    case 'verdict':
      // `unknown` or `unknown_hook` for the verdict with a space
      return row.verdict.startsWith(value.replace(/_/g, ' '));
    case 'status':
      return statusMatches(row.status, value);
    case 'path':
      return has(row.path, value);
    case 'method':
      return row.method.toLowerCase() === value;
    case 'event':
      return has(row.eventId, value);
    default:
      return false;
  }
}

/** True when a received request passes every term (and went wrong, with `failuresOnly`). */
export function requestMatches(row: WatchedRequest, terms: FilterTerm[], failuresOnly: boolean): boolean {
  if (failuresOnly && !requestFailed(row)) return false;
  return terms.every((t) => (t.field !== null ? requestField(row, t.field, t.value) : REQUEST_FIELDS.some((f) => requestField(row, f, t.value))));
}

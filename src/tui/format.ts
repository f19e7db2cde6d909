import { escapeControls } from '../util/text.js';
import type { WatchedAttempt, WatchedJob, WatchedRequest } from './types.js';

/** Cuts or pads `text` to exactly `width` cells (an ellipsis marks a cut). */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const flat = escapeControls(text.replace(/\s+/g, ' '));
  if (flat.length > width) return width === 1 ? '…' : `${flat.slice(0, width - 1)}…`;
  return align === 'left' ? flat.padEnd(width) : flat.padStart(width);
}

/** `HH:MM:SS` local time, as the screen shows times. */
export function clock(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A compact age: `42s`, `5m`, `3h`, `2d`. */
export function age(sinceMs: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - sinceMs) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** A number with thousands separators. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `[#####-----]`: done out of total, `width` cells inside the brackets. */
export function progressBar(done: number, total: number, width: number): string {
  const inner = Math.max(1, width - 2);
  const filled = total > 0 ? Math.min(inner, Math.round((done / total) * inner)) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(inner - filled)}]`;
}

/** A column of a pane: its title, width, alignment and the text of a row. */
export interface Column<T> {
  title: string;
  width: number;
  align?: 'left' | 'right';
  value(row: T, nowMs: number): string;
}

/** The Attempts pane's columns; the last one (error) takes the width left over. */
export function attemptColumns(totalWidth: number): Column<WatchedAttempt>[] {
  // An 80-column terminal keeps every column, names a little shorter.
  const narrow = totalWidth < 100;
  const cols: Column<WatchedAttempt>[] = [
    { title: 'TIME', width: 8, value: (r) => clock(r.at) },
    { title: 'ACCOUNT', width: narrow ? 8 : 14, value: (r) => r.accountName || r.accountId },
    { title: 'HOOK', width: narrow ? 10 : 16, value: (r) => r.hookName || r.hookId },
    { title: 'EVENT', width: 15, value: (r) => r.event },
    { title: 'RESULT', width: 7, value: (r) => r.result },
    { title: 'HTTP', width: 4, align: 'right', value: (r) => (r.httpStatus === null ? '-' : String(r.httpStatus)) },
    { title: 'LATENCY', width: 7, align: 'right', value: (r) => (r.latencyMs === null ? '-' : `${r.latencyMs}ms`) },
    { title: 'RETRIES', width: 7, align: 'right', value: (r) => (r.retriesLeft === null ? '-' : String(r.retriesLeft)) },
  ];
  const used = cols.reduce((n, c) => n + c.width + 1, 0);
  cols.push({ title: 'ERROR', width: Math.max(3, totalWidth - used), value: (r) => r.error ?? '' });
  return cols;
}

/** The Received pane's columns; the path takes the width left over. */
export function requestColumns(totalWidth: number): Column<WatchedRequest>[] {
  const narrow = totalWidth < 100;
  const cols: Column<WatchedRequest>[] = [
    { title: 'TIME', width: 8, value: (r) => clock(r.at) },
    { title: 'ACCOUNT', width: narrow ? 8 : 14, value: (r) => r.accountName || r.accountId || '-' },
    { title: 'HOOK', width: narrow ? 10 : 16, value: (r) => r.hookName || r.hookId || '-' },
    { title: 'METHOD', width: 6, value: (r) => r.method },
    { title: 'HTTP', width: 4, align: 'right', value: (r) => (r.status === null ? '-' : String(r.status)) },
    { title: 'LATENCY', width: 7, align: 'right', value: (r) => (r.latencyMs === null ? 'hung' : `${r.latencyMs}ms`) },
    { title: 'VERDICT', width: 12, value: (r) => r.verdict },
  ];
  const used = cols.reduce((n, c) => n + c.width + 1, 0);
  cols.push({ title: 'PATH', width: Math.max(3, totalWidth - used), value: (r) => r.path });
  return cols;
}

/** `1234` or, past four digits, `103k` / `1.2M`. */
export function compact(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${Math.floor(n / 1000)}k`;
  return `${(Math.floor(n / 100_000) / 10).toFixed(1)}M`;
}

function doneOf(r: WatchedJob, width: number): string {
  const exact = `${r.successes + r.failures}/${r.total}`;
  return exact.length <= width ? exact : `${compact(r.successes + r.failures)}/${compact(r.total)}`;
}

/** The Jobs pane's columns; the job id (`YYYYMM-` and 32 hex) first, then the bar, share what is left. */
export function jobColumns(totalWidth: number): Column<WatchedJob>[] {
  const narrow = totalWidth < 100;
  const fixed: Column<WatchedJob>[] = [
    { title: 'ACCOUNT', width: narrow ? 8 : 14, value: (r) => r.accountName || r.accountId },
    { title: 'RESOURCE', width: narrow ? 9 : 16, value: (r) => r.resourceName ?? r.resourceId },
    { title: 'STATUS', width: 8, value: (r) => r.status },
  ];
  const counts: Column<WatchedJob>[] = [
    { title: 'DONE', width: narrow ? 9 : 13, align: 'right', value: (r) => doneOf(r, narrow ? 9 : 13) },
    { title: 'OK', width: narrow ? 6 : 7, align: 'right', value: (r) => String(r.successes) },
    { title: 'FAILED', width: narrow ? 6 : 7, align: 'right', value: (r) => String(r.failures) },
    { title: 'AGE', width: narrow ? 3 : 4, align: 'right', value: (r, now) => age(r.createdAt, now) },
  ];
  // Widths of the other columns and the spaces between all nine.
  const used = [...fixed, ...counts].reduce((n, c) => n + c.width, 0) + 8;
  const left = Math.max(20, totalWidth - used);
  const idWidth = Math.min(39, left - 9);
  const barWidth = Math.max(8, Math.min(22, left - idWidth));
  return [
    { title: 'JOB', width: idWidth, value: (r) => r.id },
    ...fixed,
    { title: 'PROGRESS', width: barWidth, value: (r) => progressBar(r.successes + r.failures, r.total, barWidth) },
    ...counts,
  ];
}

/** One table line: every column fitted and joined by a space. */
export function tableLine<T>(cols: Column<T>[], row: T, nowMs: number): string {
  return cols.map((c) => fit(c.value(row, nowMs), c.width, c.align)).join(' ');
}

/** The title line of a table. */
export function titleLine<T>(cols: Column<T>[]): string {
  return cols.map((c) => fit(c.title, c.width, c.align)).join(' ');
}

function kv(key: string, value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const s = String(value);
  return ` ${key}=${/[\s"]/.test(s) ? JSON.stringify(s) : s}`;
}

/** The plain-stream line of an attempt (`tel watch | grep failure`). */
export function attemptLine(r: WatchedAttempt): string {
  return (
    `${new Date(r.at).toISOString()} attempt ${r.result}` +
    kv('status', r.httpStatus) +
    kv('latency_ms', r.latencyMs) +
    kv('retries_left', r.retriesLeft) +
    kv('account', r.accountName || r.accountId) +
    kv('hook', r.hookName || r.hookId) +
    kv('event', r.event) +
    kv('error', r.error) +
    kv('id', r.id)
  );
}

/** The plain-stream line of a request the sink received (`verdict=`, never `failure`: grep failure picks attempts). */
export function requestLine(r: WatchedRequest): string {
  return (
    `${new Date(r.at).toISOString()} received ${r.method} ${r.path}` +
    kv('status', r.status ?? 'none') +
    kv('latency_ms', r.latencyMs) +
    kv('verdict', r.verdict) +
    kv('account', r.accountName || r.accountId) +
    kv('hook', r.hookName || r.hookId) +
    kv('event', r.eventId) +
    kv('id', r.id)
  );
}

/** The plain-stream line of a job change. */
export function jobLine(r: WatchedJob): string {
  return (
    `${new Date(r.modifiedAt).toISOString()} job ${r.id} ${r.status} ${r.successes + r.failures}/${r.total}` +
    // `ok`/`failed`, not `failures=0`: `tel watch | grep failure` should pick attempts only.
    kv('ok', r.successes) +
    kv('failed', r.failures) +
    kv('resource', r.resourceName ?? r.resourceId) +
    kv('account', r.accountName || r.accountId)
  );
}

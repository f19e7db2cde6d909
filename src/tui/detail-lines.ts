import { progressBar } from './format.js';
import type { AttemptDetail, CallLeg, HookState, JobDetail, RequestDetail } from './types.js';

/** One line of a detail view and how to colour it. */
export interface DetailLine {
  text: string;
  tone?: 'title' | 'section' | 'bad' | 'good' | 'dim' | 'hint';
}

/** A body as readable lines: JSON indented, a form split at `&`, anything else as is. */
export function bodyLines(body: string | null): string[] {
  if (body === null) return ['(none)'];
  if (body === '') return ['(empty)'];
  try {
    return JSON.stringify(JSON.parse(body), null, 2).split('\n');
  } catch {
    if (/^[^\s=&]+=[^\s]*(&[^\s=&]+=[^\s]*)*$/.test(body)) {
      return body.split('&').map((pair) => {
        try {
          return decodeURIComponent(pair.replace(/\+/g, ' '));
        } catch {
          return pair;
        }
      });
    }
    return body.split(/\r?\n/);
  }
}

/** True when the hook was disabled by the failure counter (the only kind `r` re-enables). */
export function isAutoDisabled(hook: HookState | undefined): boolean {
  return !!hook && !hook.enabled && !!hook.disableReason;
}

function hookLine(hook: HookState | undefined): DetailLine[] {
  if (!hook) return [{ text: 'Hook state  deleted', tone: 'dim' }];
  return [...stateLine(hook), ...breakerLine(hook)];
}

/** The delivery circuit breaker: open means the endpoint is probed one try at a time. */
function breakerLine(hook: HookState): DetailLine[] {
  const b = hook.breaker;
  if (!b) return [];
  if (b.state === 'closed') return [{ text: 'Breaker     closed', tone: 'good' }];
  const since = new Date(b.changed).toISOString().slice(11, 19);
  return [{ text: `Breaker     open since ${since} after ${b.failures} failed tries in a row: one try at a time`, tone: 'bad' }];
}

function stateLine(hook: HookState): DetailLine[] {
  if (hook.enabled) return [{ text: 'Hook state  enabled', tone: 'good' }];
  if (!hook.disableReason) return [{ text: 'Hook state  disabled by hand', tone: 'dim' }];
  return [
    { text: `Hook state  auto-disabled: ${hook.disableReason}`, tone: 'bad' },
    { text: '            press r to re-enable it', tone: 'hint' },
  ];
}

function headerLines(headers: Record<string, string> | null): DetailLine[] {
  return Object.entries(headers ?? {}).map(([k, v]) => ({ text: `  ${k}: ${v}`, tone: 'dim' as const }));
}

/** A call's legs as their CDRs tell them, beside the event of one of its deliveries (one line: the view's top stays the request's). */
function callSummary(legs: CallLeg[]): string {
  if (legs.length === 0) return 'call still up: no CDR yet';
  return `CDRs: ${legs.map((l) => `${l.direction} ${l.durationSeconds}s billed ${l.billingSeconds}s ${l.hangupCause}`).join(' · ')}`;
}

/** The lines of an attempt's detail view: what was sent, what came back, the hook's state, a call's CDRs. */
export function attemptDetailLines(d: AttemptDetail): DetailLine[] {
  const lines: DetailLine[] = [
    { text: `Attempt ${d.id}  ${d.result}  ${new Date(d.at).toISOString()}`, tone: d.result === 'success' ? 'good' : 'bad' },
    { text: `Account     ${d.accountName} (${d.accountId})` },
    { text: `Hook        ${d.hookName} (${d.hookId})` },
    ...hookLine(d.hook),
    { text: `Event       ${d.event}${d.call ? `   ${callSummary(d.call)}` : ''}` },
    {
      text: `Result      ${d.result}  HTTP ${d.httpStatus ?? '-'}  latency ${d.latencyMs ?? '-'}ms  retries left ${d.retriesLeft ?? '-'}`,
    },
  ];
  if (d.error) lines.push({ text: `Error       ${d.error}`, tone: 'bad' });
  lines.push({ text: '' }, { text: 'Request', tone: 'section' }, { text: `  ${d.method.toUpperCase()} ${d.uri}` });
  lines.push(...headerLines(d.requestHeaders), { text: '' });
  lines.push(...bodyLines(d.requestBody).map((t) => ({ text: `  ${t}` })));
  lines.push({ text: '' }, { text: 'Response', tone: 'section' });
  if (d.responseHeaders === null && d.responseBody === null && d.httpStatus === null) {
    lines.push({ text: '  (no response)', tone: 'dim' });
  } else {
    lines.push({ text: `  HTTP ${d.httpStatus ?? '-'}` }, ...headerLines(d.responseHeaders), { text: '' });
    lines.push(...bodyLines(d.responseBody).map((t) => ({ text: `  ${t}` })));
  }
  return lines;
}

/** The lines of a job's detail view: progress and every number it could not add. */
export function jobDetailLines(d: JobDetail): DetailLine[] {
  const done = d.successes + d.failures;
  const lines: DetailLine[] = [
    { text: `Job ${d.id}  ${d.status}`, tone: d.status === 'failed' ? 'bad' : 'title' },
    { text: `Account     ${d.accountName} (${d.accountId})` },
    { text: `Resource    ${d.resourceName ?? ''} (${d.resourceId})` },
    { text: `Created     ${new Date(d.createdAt).toISOString()}` },
    { text: `Modified    ${new Date(d.modifiedAt).toISOString()}` },
    { text: `Progress    ${progressBar(done, d.total, 32)} ${done}/${d.total}  ok ${d.successes}  failed ${d.failures}` },
    { text: '' },
    { text: `Errors (${d.errors.length})`, tone: 'section' },
  ];
  if (d.errors.length === 0) lines.push({ text: '  (none)', tone: 'dim' });
  for (const e of d.errors) {
    lines.push({ text: `  ${e.number.padEnd(18)} ${e.reason}${e.message ? `: ${e.message}` : ''}`, tone: 'bad' });
  }
  return lines;
}

/** Two columns of text, `│` between them, as wide as `width` together (indentation kept, long lines cut). */
function sideBySide(left: string[], right: string[], width: number, tone?: DetailLine['tone']): DetailLine[] {
  const w = Math.max(10, Math.floor((width - 3) / 2));
  const cell = (t: string) => (t.length > w ? `${t.slice(0, w - 1)}…` : t.padEnd(w));
  return Array.from({ length: Math.max(left.length, right.length) }, (_, i) => ({ text: `${cell(left[i] ?? '')} │ ${right[i] ?? ''}`, ...(tone ? { tone } : {}) }));
}

/** Headers of both sides by name, in one order, each beside its namesake (`-` where a side has none). */
function headerPairs(left: Record<string, string>, right: Record<string, string>): [string[], string[]] {
  const names = [...new Set([...Object.keys(left), ...Object.keys(right)].map((k) => k.toLowerCase()))].sort();
  const value = (h: Record<string, string>, name: string) => Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
  const side = (h: Record<string, string>) => names.map((n) => (value(h, n) === undefined ? '  -' : `  ${n}: ${value(h, n)}`));
  return [side(left), side(right)];
}

function verdictTone(d: RequestDetail): DetailLine['tone'] {
  return d.verdict === 'valid' ? 'good' : d.verdict === 'unsigned' ? 'dim' : 'bad';
}

/**
 * The lines of a received request's detail view: what the sink got and answered, and beside it
 * (sent and received side by side) what tel sent and recorded of the same try.
 */
export function requestDetailLines(d: RequestDetail, width: number): DetailLine[] {
  const target = `${d.path}${d.query ? `?${d.query}` : ''}`;
  const answer = d.status === null ? 'never answered' : `answered ${d.status} in ${d.latencyMs ?? '-'}ms`;
  const ok = d.status !== null && d.status >= 200 && d.status < 300;
  const lines: DetailLine[] = [
    { text: `Received ${d.id}  ${d.method} ${target}  ${answer}  (${d.answeredBy})`, tone: ok ? 'good' : 'bad' },
    { text: `Verdict     ${d.verdict}${d.verdictDetail ? `: ${d.verdictDetail}` : ''}`, tone: verdictTone(d) },
    { text: `Account     ${d.accountName || '-'}${d.accountId ? ` (${d.accountId})` : ''}` },
    { text: `Hook        ${d.hookName || '-'}${d.hookId ? ` (${d.hookId})` : ''}` },
    { text: `Event       ${d.eventId ?? '-'}` },
    { text: `Sink        ${d.listener}  at ${new Date(d.at).toISOString()}  body ${d.bodyBytes} bytes` },
    { text: '' },
  ];
  const s = d.sent;
  const answered = d.reply
    ? [`  ${answer}`, ...Object.entries(d.reply.headers).map(([k, v]) => `  ${k}: ${v}`), ...bodyLines(d.reply.body).map((t) => `  ${t}`)]
    : [`  ${answer}`];
  if (!s) return [...lines, ...receivedAlone(d, target, answered)];
  lines.push(...sideBySide([`Sent by tel (attempt ${s.id})`], [`Received by the sink (request ${d.id})`], width, 'section'));
  const [sentHeaders, gotHeaders] = headerPairs(s.requestHeaders, d.headers);
  lines.push(...sideBySide([`  ${s.method.toUpperCase()} ${s.uri}`, ...sentHeaders, ''], [`  ${d.method} ${target}`, ...gotHeaders, ''], width));
  lines.push(...sideBySide(bodyLines(s.requestBody).map((t) => `  ${t}`), bodyLines(d.body).map((t) => `  ${t}`), width));
  lines.push({ text: '' });
  lines.push(...sideBySide(['What tel recorded'], ['What the sink answered'], width, 'section'));
  const recorded = [
    `  ${s.result}  HTTP ${s.httpStatus ?? '-'}  latency ${s.latencyMs ?? '-'}ms  retries left ${s.retriesLeft ?? '-'}`,
    ...(s.error ? [`  error: ${s.error}`] : []),
    ...headerLines(s.responseHeaders).map((l) => l.text),
    ...bodyLines(s.responseBody).map((t) => `  ${t}`),
  ];
  lines.push(...sideBySide(recorded, answered, width));
  return lines;
}

/** A request with no attempt of tel beside it: what arrived (headers, body) and what the sink answered, in one column. */
function receivedAlone(d: RequestDetail, target: string, answered: string[]): DetailLine[] {
  const why = d.hookId && d.eventId ? 'no attempt of its hook and event recorded (yet, or any more)' : 'not a delivery of tel (no hook or event id)';
  return [
    { text: `Sent by tel  (${why})`, tone: 'dim' },
    { text: '' },
    { text: `Received by the sink (request ${d.id})`, tone: 'section' },
    { text: `  ${d.method} ${target}` },
    ...Object.entries(d.headers).map(([k, v]) => ({ text: `  ${k}: ${v}`, tone: 'dim' as const })),
    { text: '' },
    ...bodyLines(d.body).map((t) => ({ text: `  ${t}` })),
    { text: '' },
    { text: 'What the sink answered', tone: 'section' },
    ...answered.map((text) => ({ text })),
  ];
}

import type { RecordedResponse } from './format.js';
import type { DiffSummary, ExchangeResult } from './replay.js';

/** A value as a report shows it: JSON, cut at `max` characters; absent as `(absent)`. */
export function shown(v: unknown, max = 80): string {
  if (v === undefined) return '(absent)';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An exchange that is not identical, as `tel diff` prints it: a line, then one a difference. */
export function resultLines(r: ExchangeResult): string[] {
  const status = r.status.replayed !== undefined && r.status.replayed !== r.status.recorded ? ` (${r.status.recorded} → ${r.status.replayed})` : '';
  const lines = [`#${r.seq} ${r.method} ${r.path} → ${r.verdict}${status}${r.reason ? `: ${r.reason}` : ''}`];
  for (const d of r.differences) lines.push(`    ${d.field}: ${shown(d.recorded)} → ${shown(d.replayed)}${d.allowed_by ? `  (allowed: ${d.allowed_by})` : ''}`);
  if (r.more > 0) lines.push(`    … and ${r.more} more`);
  return lines;
}

/** The last line: how many exchanges came out how. */
export function summaryLine(s: DiffSummary, against: string): string {
  return `tel diff: ${s.exchanges} exchange${s.exchanges === 1 ? '' : 's'} replayed against ${against} in ${s.seconds} s: ${s.identical} identical, ${s.allowed} with allowed differences only, ${s.differing} differing, ${s.failing} failing, ${s.skipped} skipped`;
}

/** A result as `--json` gives it (without the answers). */
export function resultJson(r: ExchangeResult): Omit<ExchangeResult, 'recorded' | 'replayed'> {
  const { recorded: _r, replayed: _n, ...rest } = r;
  return rest;
}

/** Text made safe to put between tags (no attribute of the page holds what an answer says). */
const escapeHtml = (s: string) => s.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A body pretty-printed as HTML, the lines of the fields in `marked` (report paths) highlighted. */
function bodyHtml(m: RecordedResponse | undefined, marked: Set<string>): string {
  if (!m) return '<em>no answer</em>';
  const head = `<b>${m.status}</b> ${escapeHtml(String(m.headers['content-type'] ?? ''))}\n`;
  if (m.body === undefined) {
    const text = m.body_text ?? (m.body_base64 !== undefined ? `(${m.body_bytes} bytes)` : m.body_omitted ? `(body left out: ${m.body_omitted})` : '(no body)');
    return head + escapeHtml(text);
  }
  const out: string[] = [];
  const walk = (v: unknown, path: string, indent: string, label: string, last: boolean) => {
    const comma = last ? '' : ',';
    const line = (text: string) => out.push(marked.has(path) ? `<mark>${text}</mark>` : text);
    const at = (k: string) => (path ? `${path}.${k}` : k);
    if (v !== null && typeof v === 'object') {
      const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
      const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
      if (entries.length === 0) return line(`${indent}${label}${open}${close}${comma}`);
      line(`${indent}${label}${open}`);
      entries.forEach(([k, x], i) => walk(x, at(k), `${indent}  `, Array.isArray(v) ? '' : `${escapeHtml(JSON.stringify(k))}: `, i === entries.length - 1));
      out.push(`${indent}${close}${comma}`);
    } else line(`${indent}${label}${escapeHtml(JSON.stringify(v))}${comma}`);
  };
  walk(m.body, '', '', '', true);
  return head + out.join('\n');
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.3em}
section{border-top:1px solid #ccc;padding:.5em 0}.differing h2,.failing h2{color:#b00}.allowed h2{color:#a60}.skipped h2{color:#666}
h2{font-size:1em;font-family:monospace}table{border-collapse:collapse;width:100%}td{vertical-align:top;width:50%;padding:0 .5em}
pre{background:#f6f6f6;padding:.5em;overflow:auto;max-height:40em;font-size:12px}mark{background:#fd8}ul{font-family:monospace;font-size:12px}`;

/** The static page of `tel diff --html FILE`: each exchange that is not identical, its answers side by side. */
export function htmlReport(file: string, against: string, summary: DiffSummary, results: ExchangeResult[], omitted: number): string {
  const sections = results.map((r) => {
    const marked = new Set(r.differences.map((d) => d.field));
    const diffs = r.differences.map((d) => `<li>${escapeHtml(`${d.field}: ${shown(d.recorded, 200)} → ${shown(d.replayed, 200)}`)}${d.allowed_by ? ` <em>(allowed: ${escapeHtml(d.allowed_by)})</em>` : ''}</li>`);
    if (r.more > 0) diffs.push(`<li>… and ${r.more} more</li>`);
    const sides =
      r.recorded || r.replayed
        ? `<table><tr><th>recorded</th><th>replayed</th></tr><tr><td><pre>${bodyHtml(r.recorded, marked)}</pre></td><td><pre>${bodyHtml(r.replayed, marked)}</pre></td></tr></table>`
        : '';
    return `<section class="${r.verdict}"><h2>#${r.seq} ${escapeHtml(r.method)} ${escapeHtml(r.path)} — ${r.verdict}</h2>${r.reason ? `<p>${escapeHtml(r.reason)}</p>` : ''}<ul>${diffs.join('')}</ul>${sides}</section>`;
  });
  const left = omitted > 0 ? `<p>${omitted} more exchanges that are not identical are listed by tel diff's output only.</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tel diff: ${escapeHtml(file)}</title><style>${STYLE}</style></head><body>
<h1>tel diff of ${escapeHtml(file)} against ${escapeHtml(against)}</h1>
<p>${escapeHtml(summaryLine(summary, against))}</p>
${sections.join('\n')}
${left}
</body></html>
`;
}

// node:fs/promises loads when first read (this module is part of every start, `tel --help`'s too: 1.2 ms)
import { promises as fs } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../util/json.js';
import { escapeControls } from '../util/text.js';

/** Where a command writes; tests capture these. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** true when stdout is a terminal (progress bars, prompts) */
  isTTY: boolean;
  /** reads a whole input stream (`-` for stdin); tests may replace it */
  readStdin?(): Promise<string>;
  /**
   * writes a piece of a long output as it is, resolving once the reader has taken it (stdout's
   * backpressure): what a command streams goes through it. Without it, pieces go to `out` at the end.
   */
  write?(text: string): void | Promise<void>;
  /** called once the code of the command to run is loaded, before it runs (see stdio.ts) */
  commandLoaded?(): void;
}

/** A refused or failed operation: one sentence to stderr, exit 1 (2 for usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
  }
}

/** The global options, wherever on the line they were given. */
export interface Globals {
  db: string;
  json: boolean;
}

/** Adds `--db` and `--json` to a command so they work after the subcommand too. */
export function withGlobals(cmd: Command): Command {
  return cmd
    .option('--db <file>', 'database file (default: $TEL_DB, else ./tel.db)')
    .option('--json', 'machine-readable output');
}

/** Resolves the global options from a command and its parents. */
export function globalsOf(cmd: Command): Globals {
  let db: string | undefined;
  let json = false;
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.opts() as { db?: string; json?: boolean };
    db ??= o.db;
    json ||= o.json === true;
  }
  return { db: db ?? process.env.TEL_DB ?? './tel.db', json };
}

/** Parses a whole-number option value (a commander argument parser): anything else is a usage error. */
export function wholeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw new InvalidArgumentError('It must be a whole number.');
  return n;
}

/** A `--port` value: a whole number 0..65535 (0: any free port), else a usage error. */
export function portOf(value: string): number {
  const port = Number(value);
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0..65535, not ${value}.`, 2);
  return port;
}

/** Prints a result: JSON with `--json` (or when `human` is absent), else the human text. */
export function emit(io: CliIo, g: Globals, value: unknown, human?: () => string): void {
  if (g.json || !human) io.out(JSON.stringify(value, null, 2));
  else io.out(human());
}

/**
 * Prints JSON text given in pieces (a listing read a chunk at a time) as `emit` prints a value:
 * indented as `JSON.stringify(value, null, 2)` indents it, each piece written as soon as it is
 * made and the reader has taken the one before, so the output of any size takes little memory.
 */
export async function emitJsonPieces(io: CliIo, pieces: Iterable<string>): Promise<void> {
  const pretty = prettyJson();
  if (!io.write) {
    let all = '';
    for (const piece of pieces) all += pretty(piece);
    io.out(all);
    return;
  }
  for (const piece of pieces) {
    const text = pretty(piece);
    if (text) await io.write(text);
  }
  await io.write('\n');
}

/**
 * A streaming indenter of compact JSON text: feed it the text in pieces (cut anywhere), it answers
 * each piece indented by two spaces a level, as `JSON.stringify(JSON.parse(text), null, 2)` writes
 * it. Strings are copied in runs found with `indexOf` (they are most of the text), so tens of
 * megabytes take well under a second.
 */
export function prettyJson(): (piece: string) => string {
  let depth = 0;
  let inString = false;
  /** inside a string, the last character was a backslash: the next one is escaped */
  let escaped = false;
  /** an object or array was just opened: the next character says whether it is empty */
  let opened = false;
  const indents: string[] = [];
  const line = (d: number) => (indents[d] ??= `\n${'  '.repeat(d)}`);
  return (piece) => {
    const out: string[] = [];
    let run = 0;
    let i = 0;
    const n = piece.length;
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i++;
          continue;
        }
        const quote = piece.indexOf('"', i);
        const slash = piece.indexOf('\\', i);
        if (slash >= 0 && (quote < 0 || slash < quote)) {
          escaped = true;
          i = slash + 1;
        } else if (quote >= 0) {
          inString = false;
          i = quote + 1;
        } else i = n;
        continue;
      }
      const ch = piece[i];
      if (opened) {
        opened = false;
        if (ch === '}' || ch === ']') {
          depth--;
          i++;
          continue;
        }
        out.push(piece.slice(run, i), line(depth));
        run = i;
      }
      if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') {
        depth++;
        opened = true;
      } else if (ch === '}' || ch === ']') {
        out.push(piece.slice(run, i), line(--depth));
        run = i;
      } else if (ch === ',') {
        out.push(piece.slice(run, i + 1), line(depth));
        run = i + 1;
      } else if (ch === ':') {
        out.push(piece.slice(run, i + 1), ' ');
        run = i + 1;
      }
      i++;
    }
    out.push(piece.slice(run));
    return out.join('');
  };
}

/** Maps any error to its exit code: usage 2, everything else 1. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  return 1;
}

/** Parses a JSON option value, or `@file` to read it from a file. */
export async function jsonArg(value: string, what: string): Promise<unknown> {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = await fs.readFile(value.slice(1), 'utf8');
    } catch {
      throw new CliError(`Cannot read ${what} from ${value.slice(1)}.`, 2);
    }
  }
  return parseJsonText(text, `${what} is not valid JSON.`, what);
}

/** Parses a JSON object option value (`--data`), or `@file`; anything but an object is a usage error. */
export async function jsonObjectArg(value: string, what: string): Promise<Record<string, unknown>> {
  const parsed = await jsonArg(value, what);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError(`${what} must be a JSON object.`, 2);
  return parsed as Record<string, unknown>;
}

/**
 * The fields an `update` command changes: those of `--data` (a JSON object, or @file) with the
 * options given over them; nothing given is a usage error.
 */
export async function fieldsToChange(data: string | undefined, given: Record<string, unknown>): Promise<Record<string, unknown>> {
  const fields = data === undefined ? {} : await jsonObjectArg(data, '--data');
  for (const [k, v] of Object.entries(given)) if (v !== undefined) fields[k] = v;
  if (Object.keys(fields).length === 0) throw new CliError('Nothing to change: give an option of the fields to change, or --data.', 2);
  return fields;
}

/** Parses JSON given on the command line or in a file; `invalid` is the message for text that is not JSON. */
export function parseJsonText(text: string, invalid: string, what: string): unknown {
  if (jsonTooDeep(text)) throw new CliError(`${what} nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`, 2);
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(invalid, 2);
  }
}

/** Reads a whole file, or stdin for `-` (tests hand stdin in through `io.readStdin`). */
export async function readSource(io: CliIo, source: string): Promise<string> {
  if (source === '-') {
    if (io.readStdin) return io.readStdin();
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await fs.readFile(source, 'utf8');
  } catch {
    throw new CliError(`Cannot read ${source}.`, 2);
  }
}

/** Renders rows as an aligned text table. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const t = tableLines(columns, rows);
  return [t.header, ...rows.map(t.row)].join('\n');
}

/** A table's header and row renderer, aligned on the widths `sample` needs. */
function tableLines(columns: string[], sample: Record<string, unknown>[]): { header: string; row: (r: Record<string, unknown>) => string } {
  // a cell is one line: its line feeds and tabs are written out too
  const cellsOf = (r: Record<string, unknown>) => columns.map((c) => (r[c] === undefined || r[c] === null ? '' : escapeControls(String(r[c]))));
  const widths = columns.map((c) => c.length);
  for (const r of sample) cellsOf(r).forEach((v, i) => (widths[i] = Math.max(widths[i], v.length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return { header: line(columns.map((c) => c.toUpperCase())), row: (r) => line(cellsOf(r)) };
}

/**
 * Prints rows given in chunks (a listing read a chunk at a time) as a table, each chunk as soon
 * as it is read: the columns are as wide as the first chunk needs (a longer cell further down
 * widens its own line only).
 */
export async function emitTableChunks(io: CliIo, chunks: Iterable<Record<string, unknown>[]>, columns: string[]): Promise<void> {
  let t: ReturnType<typeof tableLines> | undefined;
  let collected = '';
  for (const rows of chunks) {
    if (rows.length === 0) continue;
    let text = '';
    if (!t) text += `${(t = tableLines(columns, rows)).header}\n`;
    for (const r of rows) text += `${t.row(r)}\n`;
    if (io.write) await io.write(text);
    else collected += text;
  }
  if (!t) io.out('(none)');
  else if (!io.write) io.out(collected);
}

import { isObject } from '../util/json.js';

// Answers as CSV, as Kazoo writes them (`api_util:create_csv_resp_content/2`, `kz_csv`): each row
// flattened (nested objects' keys joined by `_` in the header), the columns in the order their keys
// first appear (a row written before a later row added a column has fewer cells: kz_csv writes each
// row as it comes and the header last), every cell quoted, rows ending in a line feed, and some
// headings named as Kazoo's CSV_HEADER_MAP names them.

/** `crossbar.hrl`'s CSV_HEADER_MAP: headings Kazoo writes in words. */
const HEADER_MAP: Readonly<Record<string, string>> = {
  account_id: 'Account ID',
  account_name: 'Account Name',
  amount: 'Amount',
  description: 'Description',
  id: 'ID',
  metadata_callee_id_number: 'Callee ID Number',
  metadata_callee_id_name: 'Callee ID Name',
  metadata_caller_id_number: 'Caller ID Number',
  metadata_caller_id_name: 'Caller ID Name',
  metadata_direction: 'Direction',
  metadata_from: 'From',
  metadata_to: 'To',
  metadata_rate_description: 'Rate Description',
  metadata_rate_increment: 'Rate Increment',
  metadata_rate_minimum: 'Rate Minimum',
  metadata_rate_name: 'Rate Name',
  metadata_rate_nocharge_time: 'Grace Period',
  metadata_rate_value: 'Rate',
  period_start: 'Start Time',
  period_end: 'End Time',
  source_id: 'Source ID',
  source_service: 'Source Service',
  usage_quantity: 'Usage Quantity',
  usage_type: 'Usage Type',
  usage_unit: 'Usage Unit',
};

/** The file name a CSV answer is offered as (`api_util:csv_file_name/2`'s default). */
export const CSV_FILE_NAME = 'result.csv';

/**
 * The columns of a CSV answer, in the order kz_csv finds them: `maybe_update_ordering/2` adds each
 * leaf path of a row (`kz_json:flatten/1`: objects are walked, lists are leaves) not seen before;
 * an empty object is no column.
 */
export class CsvColumns {
  readonly paths: string[][] = [];
  private readonly seen = new Set<string>();

  /** Adds the row's new columns; answers how many columns its line has. */
  add(row: unknown): number {
    if (isObject(row)) this.walk(row, []);
    return this.paths.length;
  }

  private walk(obj: Record<string, unknown>, prefix: string[]): void {
    for (const [k, v] of Object.entries(obj)) {
      const path = [...prefix, k];
      if (isObject(v)) {
        if (Object.keys(v).length > 0) this.walk(v, path);
        continue;
      }
      const key = JSON.stringify(path);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.paths.push(path);
    }
  }

  /** The header line: each path joined by `_`, named as CSV_HEADER_MAP names it (`kz_csv:write_header_to_file/2`). */
  header(): string {
    return csvLine(this.paths.map((p) => HEADER_MAP[p.join('_')] ?? p.join('_')));
  }

  /** A row's line over the first `width` columns (`kz_csv:jobj_to_file/2`). */
  line(row: unknown, width: number = this.paths.length): string {
    const cells: unknown[] = [];
    const n = Math.min(width, this.paths.length);
    for (let i = 0; i < n; i++) cells.push(valueAt(row, this.paths[i]));
    return csvLine(cells);
  }
}

function valueAt(row: unknown, path: string[]): unknown {
  let at = row;
  for (const k of path) {
    if (!isObject(at) || !Object.hasOwn(at, k)) return undefined;
    at = at[k];
  }
  return at;
}

/** `kz_csv:row_to_iolist/1`: the cells, each `cell_to_binary/1`, joined by commas, and a line feed. */
function csvLine(cells: unknown[]): string {
  return `${cells.map(cell).join(',')}\n`;
}

/**
 * `kz_csv:cell_to_binary/1`: nothing for an absent value, else its text (`kz_term:to_binary/1`:
 * an object as its JSON, a list's items joined by commas) quoted, quotes doubled.
 */
function cell(v: unknown): string {
  const text = cellText(v);
  return text === undefined ? '' : `"${text.replaceAll('"', '""')}"`;
}

function cellText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    // an iolist of the items and commas: strings join; anything else cannot be written (an empty cell)
    return v.every((item) => typeof item === 'string') ? v.join(',') : undefined;
  }
  return JSON.stringify(v);
}

/** A whole CSV answer of rows (a document is one row); empty when there are none (nothing to write). */
export function csvText(rows: unknown[]): string {
  const columns = new CsvColumns();
  const lines = rows.map((row) => columns.line(row, columns.add(row)));
  return columns.paths.length === 0 ? '' : columns.header() + lines.join('');
}

/**
 * A CSV answer of rows read in chunks (a listing without paging): the rows are read twice, first
 * for the header (their columns), then for the lines, so that memory holds one chunk at a time.
 * `chunks` makes a new reading each time it is called. Each chunk is one piece (the first pass's
 * pieces are empty: the writer lets other work run between them).
 */
export function* csvPieces(chunks: () => Iterable<unknown[]>): Generator<string> {
  const all = new CsvColumns();
  for (const rows of chunks()) {
    for (const row of rows) all.add(row);
    yield '';
  }
  if (all.paths.length === 0) return;
  yield all.header();
  // the lines as kz_csv wrote them as they came: a row has the columns found by then
  const sofar = new CsvColumns();
  for (const rows of chunks()) {
    let text = '';
    for (const row of rows) text += all.line(row, sofar.add(row));
    yield text;
  }
}

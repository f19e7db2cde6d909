import { jsonTooDeep, MAX_JSON_DEPTH } from '../util/json.js';

/** One thing wrong with a lab file: where (`account.children[0].webhooks[1].uri`) and what. */
export interface Problem {
  path: string;
  message: string;
}

/** A lab file that does not validate: every problem found, none written. */
export class LabInvalid extends Error {
  constructor(readonly problems: Problem[]) {
    super(`the lab file has ${problems.length} problem(s)`);
  }
}

/**
 * How far a YAML lab's aliases (`*name`) may grow it: to ten times its own characters (a small
 * file to 100,000), counted as if every alias were written out. A billion-laughs file is a few
 * lines whose aliases stand for 10⁹ strings; a lab that reuses a block with an anchor grows far less.
 */
const ALIAS_GROWTH = 10;
const ALIAS_FLOOR_CHARS = 100_000;

/**
 * Parses a lab file's text (YAML, or JSON) into plain data; syntax errors are problems, with the
 * line. YAML is read as YAML 1.2 (core schema: `yes` and `2024-01-01` are strings), one document,
 * keys given once; `__proto__` keys, nesting deeper than JSON may, and alias bombs are refused.
 */
export async function parseLabText(text: string, file: string): Promise<unknown> {
  const json = /\.json$/i.test(file) || /^\s*[{[]/.test(text);
  if (json) {
    if (jsonTooDeep(text)) throw new LabInvalid([{ path: file, message: `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep` }]);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new LabInvalid([{ path: file, message: `not valid JSON: ${(err as Error).message}` }]);
    }
    checkShape(value, file, Infinity);
    return value;
  }
  // js-yaml, not yaml: 0.4–0.7 s instead of 3.0–3.2 s of CPU for the 6.6 MB lab of a 10,000-account
  // database, in a fresh process (scripts/bench/lab-parse.mjs). Loaded when a lab is read: other
  // commands start without it.
  const { loadAll, YAMLException } = await import('js-yaml');
  let documents: unknown[];
  try {
    // js-yaml's depth counts one more than ours: 65 refuses what nests 65 levels, as JSON labs are refused
    documents = loadAll(text, { maxDepth: MAX_JSON_DEPTH + 1 });
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    // js-yaml's words for too deep, said as tel says them of JSON labs
    const reason = err.reason.startsWith('nesting exceeded maxDepth') ? `nests mappings and lists more than ${MAX_JSON_DEPTH} levels deep` : err.reason;
    const at = err.mark ? ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}` : '';
    throw new LabInvalid([{ path: file, message: `${reason}${at}` }]);
  }
  if (documents.length > 1) throw new LabInvalid([{ path: file, message: `holds ${documents.length} YAML documents (--- starts one): a lab file is one` }]);
  const value = documents[0] ?? null;
  checkShape(value, file, Math.max(ALIAS_FLOOR_CHARS, ALIAS_GROWTH * text.length));
  return value;
}

/** An object (mapping or list) the walk has reached, and how: for the path of a problem in it. */
interface Visit {
  value: object;
  depth: number;
  parent?: Visit;
  key?: string | number;
}

/**
 * Walks parsed data once, as the checks and the store after it will: refuses a `__proto__` key
 * (named by its path), nesting deeper than MAX_JSON_DEPTH (an alias can nest an anchor's block
 * inside itself) and more than `maxChars` characters. An alias is its anchor's own object, not a
 * copy, so a value is counted each time it is reached, and the walk stops as soon as the count is over.
 */
function checkShape(root: unknown, file: string, maxChars: number): void {
  let chars = 0;
  const pending: Visit[] = [];
  const reach = (value: unknown, parent?: Visit, key?: string | number) => {
    chars += typeof value === 'string' ? value.length : 1;
    if (chars > maxChars) {
      throw new LabInvalid([{ path: file, message: `its aliases (*name) stand for more than ${maxChars.toLocaleString('en-US')} characters: refused as an alias bomb` }]);
    }
    if (value !== null && typeof value === 'object') pending.push({ value, depth: parent ? parent.depth + 1 : 1, parent, key });
  };
  reach(root);
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value, depth } = visit;
    if (depth > MAX_JSON_DEPTH) throw new LabInvalid([{ path: file, message: `nests mappings and lists more than ${MAX_JSON_DEPTH} levels deep` }]);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) reach(value[i], visit, i);
      continue;
    }
    if (Object.hasOwn(value, '__proto__')) throw new LabInvalid([{ path: pathOf(visit, '__proto__'), message: 'not a key a lab file may hold' }]);
    for (const key of Object.keys(value)) {
      chars += key.length;
      reach((value as Record<string, unknown>)[key], visit, key);
    }
  }
}

/** The path of a key of a visited object in the lab's own terms: `account.users[0].sip`. */
function pathOf(visit: Visit, key: string): string {
  const keys: (string | number)[] = [key];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent) keys.unshift(v.key!);
  return keys.reduce<string>((path, k) => (typeof k === 'number' ? `${path}[${k}]` : path ? `${path}.${k}` : k), '');
}

/**
 * The allow-list of `tel diff --allow FILE`: differences the user expects, one a line,
 *
 *     [METHOD] [PATH] FIELD    # why
 *
 * FIELD as the report names it (`data.retries`, `data.*.name`, `http.status`, `body`), PATH as the
 * recording has it (`/v2/accounts/*\/webhooks`); in both, `*` stands for one segment (between dots
 * in a field, slashes in a path) and `**` for any number. A METHOD goes with a PATH; `*` is any.
 */
export interface AllowRule {
  method?: string;
  path?: RegExp;
  field: RegExp;
  /** the line as written, without its comment, and its number */
  text: string;
  line: number;
}

/** A line of an allow-list that cannot be read. */
export class AllowListInvalid extends Error {}

/** A glob as a regular expression: `*` one segment between `separator`s, `**` anything. */
function globRegExp(glob: string, separator: '.' | '/'): RegExp {
  const one = separator === '.' ? '[^.]*' : '[^/]*';
  const source = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
        .join(one),
    )
    .join('.*');
  return new RegExp(`^${source}$`);
}

/** Reads an allow-list; throws AllowListInvalid naming the line of a problem. */
export function parseAllowList(text: string): AllowRule[] {
  const rules: AllowRule[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) return;
    const words = line.split(/\s+/);
    if (words.length > 3) throw new AllowListInvalid(`line ${i + 1}: at most a method, a path and a field, not "${line}"`);
    const field = words[words.length - 1];
    const path = words.length >= 2 ? words[words.length - 2] : undefined;
    const method = words.length === 3 ? words[0].toUpperCase() : undefined;
    if (path !== undefined && !path.startsWith('/') && !path.startsWith('*')) throw new AllowListInvalid(`line ${i + 1}: a path starts with / (or *), not "${path}"`);
    if (method !== undefined && !/^(\*|[A-Z]+)$/.test(method)) throw new AllowListInvalid(`line ${i + 1}: "${words[0]}" is not a method`);
    rules.push({
      method: method === '*' ? undefined : method,
      path: path === undefined ? undefined : globRegExp(path, '/'),
      field: globRegExp(field, '.'),
      text: line,
      line: i + 1,
    });
  });
  return rules;
}

/** The rule that allows a difference at `field` of an exchange, if any. */
export function allowedBy(rules: readonly AllowRule[], method: string, path: string, field: string): AllowRule | undefined {
  return rules.find((r) => (!r.method || r.method === method) && (!r.path || r.path.test(path)) && r.field.test(field));
}

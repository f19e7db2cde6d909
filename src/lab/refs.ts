/**
 * References between the objects of a lab file: `{{accounts.Customer A.id}}`,
 * `{{users.Lab/Customer A/alice.id}}`, `{{accounts.Lab/Customer A.realm}}`. A key is an object's
 * full key (an account's path of names from the root, or `ACCOUNT PATH/NAME` for what an account
 * holds; a global resource's name) or its bare name when no other object of its kind has it.
 * Objects are found by what the file declares, never by the database's generated ids.
 */

/** What a reference points at; planning fills in `id` (and an account's `realm`). */
export interface RefTarget {
  id?: string;
  realm?: string;
}

const REF = /\{\{\s*([a-z_]+)\.(.+?)\.([a-z_]+)\s*\}\}/g;

/** The fields a reference may read, by kind (`id` of everything, an account's `realm`). */
function readable(kind: string): string[] {
  return kind === 'accounts' ? ['id', 'realm'] : ['id'];
}

/** Every object of a lab file a reference may name, by kind and key. */
export class RefIndex {
  private byFull = new Map<string, Map<string, RefTarget>>();
  private byBare = new Map<string, Map<string, RefTarget[]>>();

  constructor(private readonly kinds: ReadonlySet<string>) {}

  /** Declares an object under its full key and its bare name. */
  add(kind: string, fullKey: string, bare: string, target: RefTarget): void {
    let full = this.byFull.get(kind);
    if (!full) this.byFull.set(kind, (full = new Map()));
    full.set(fullKey, target);
    let names = this.byBare.get(kind);
    if (!names) this.byBare.set(kind, (names = new Map()));
    const same = names.get(bare);
    if (same) same.push(target);
    else names.set(bare, [target]);
  }

  /** The object a key names, or why there is none. */
  find(kind: string, key: string): RefTarget | string {
    const full = this.byFull.get(kind)?.get(key);
    if (full) return full;
    const named = this.byBare.get(kind)?.get(key) ?? [];
    if (named.length === 1) return named[0];
    if (named.length > 1) return `${named.length} ${kind} are named "${key}": write the account path too (${kind}.ACCOUNT/…/${key})`;
    return `the file declares no ${kind} "${key}"`;
  }

  /** The shortest key that names `target` (its bare name when unique), for export. */
  keyOf(kind: string, fullKey: string, bare: string): string {
    return (this.byBare.get(kind)?.get(bare)?.length ?? 0) === 1 && !this.byFull.get(kind)?.has(bare) ? bare : fullKey;
  }

  /** Problems of the references in a value (each as a sentence), none when all resolve. */
  problems(value: unknown): string[] {
    const out: string[] = [];
    forEachString(value, (s) => {
      for (const m of s.matchAll(REF)) {
        const [text, kind, key, field] = m;
        if (!this.kinds.has(kind)) continue;
        const found = this.find(kind, key);
        if (typeof found === 'string') out.push(`${text}: ${found}`);
        else if (!readable(kind).includes(field)) out.push(`${text}: a reference reads ${readable(kind).join(' or ')}, not ${field}`);
      }
      return s;
    });
    return out;
  }

  /** A copy of `value` with every reference replaced by what it names (planning has set ids). */
  resolve<T>(value: T): T {
    return forEachString(value, (s) =>
      s.includes('{{')
        ? s.replace(REF, (text, kind: string, key: string, field: string) => {
            if (!this.kinds.has(kind)) return text;
            const found = this.find(kind, key);
            const v = typeof found === 'string' ? undefined : found[field as keyof RefTarget];
            if (v === undefined) throw new Error(`${text} does not resolve`);
            return v;
          })
        : s,
    ) as T;
  }
}

/** A deep copy of a JSON value whose strings went through `fn` (a loop: depth is the file's choice). */
export function forEachString(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (value === null || typeof value !== 'object') return value;
  const root: unknown = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown> | unknown[];
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    for (const k of keys) {
      const v = (node as Record<string | number, unknown>)[k];
      if (typeof v === 'string') (node as Record<string | number, unknown>)[k] = fn(v);
      else if (v !== null && typeof v === 'object') {
        const copy = Array.isArray(v) ? [...v] : { ...(v as Record<string, unknown>) };
        (node as Record<string | number, unknown>)[k] = copy;
        pending.push(copy);
      }
    }
  }
  return root;
}

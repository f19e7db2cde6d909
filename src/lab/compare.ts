/** JSON text of a value with object keys sorted: equal for equal documents whatever their key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  ) ?? 'undefined';
}

/** The top-level fields whose values differ between two documents (a missing field differs from any value). */
export function changedFields(desired: Record<string, unknown>, current: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(desired), ...Object.keys(current)]);
  return [...keys].filter((k) => canonical(desired[k]) !== canonical(current[k])).sort();
}

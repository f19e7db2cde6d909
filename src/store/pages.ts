/** Where a keyset listing starts and how much of it one page holds. */
export interface PageQuery<K> {
  /** items a page holds; undefined: all of them */
  pageSize?: number;
  /** the key the page starts at (inclusive), as a previous page's `nextStartKey` gave it */
  startKey?: K;
}

/** One page of a keyset listing. */
export interface Page<T, K> {
  items: T[];
  /** when paged: the key of the page's start (the one asked for, else its first item's) */
  startKey?: K;
  /** when paged and more follow: where the next page starts */
  nextStartKey?: K;
}

/** The SQL `LIMIT` that also shows whether a next page exists: one more row than the page holds (-1: all). */
export function pageLimit(pageSize: number | undefined): number {
  return pageSize === undefined ? -1 : pageSize + 1;
}

/** Cuts rows read with `pageLimit(q.pageSize)`, in listing order, into a page keyed by `keyOf`. */
export function keysetPage<T, K>(rows: T[], q: PageQuery<K>, keyOf: (row: T) => K): Page<T, K> {
  if (q.pageSize === undefined) return { items: rows };
  const items = rows.length > q.pageSize ? rows.slice(0, q.pageSize) : rows;
  const page: Page<T, K> = { items };
  if (items.length > 0) page.startKey = q.startKey ?? keyOf(items[0]);
  if (rows.length > q.pageSize) page.nextStartKey = keyOf(rows[q.pageSize]);
  return page;
}

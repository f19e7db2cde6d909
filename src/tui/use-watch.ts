import { useMemo, useRef, useState } from 'react';
import type { Key } from 'ink';
import type { WatchFeed } from './feed.js';
import type { AttemptTotals, RequestTotals } from './model.js';
import {
  attemptMatches,
  ATTEMPT_FIELDS,
  JOB_FIELDS,
  jobMatches,
  parseFilter,
  REQUEST_FIELDS,
  requestMatches,
  unknownFields,
  type FilterTerm,
} from './filter.js';
import { attemptDetailLines, jobDetailLines, requestDetailLines, type DetailLine } from './detail-lines.js';
import { commandFor } from './keys.js';
import type { WatchedAttempt, WatchedJob, WatchedRequest } from './types.js';
import { useClock } from './use-clock.js';
import { useFeed } from './use-feed.js';
import { useScreenSize, type ScreenSize } from './use-screen-size.js';
import { initialViewState, PANES, reduce, windowStart, type ListContext, type Pane, type RowId, type ViewState } from './view-state.js';

/** Lines the header, the table title and the footer take. */
export const CHROME_LINES = 6;

/** The rows of one pane that fit on the screen. */
export interface PaneWindow<T> {
  rows: T[];
  /** position of rows[0] in the whole (filtered) list */
  start: number;
  /** position of the selected row in the whole list */
  selected: number;
  length: number;
}

/** Everything the components render, and the key handler. */
export interface WatchView {
  state: ViewState;
  size: ScreenSize;
  now: number;
  pageHeight: number;
  detailHeight: number;
  attempts: PaneWindow<WatchedAttempt>;
  jobs: PaneWindow<WatchedJob>;
  received: PaneWindow<WatchedRequest>;
  detail: DetailLine[] | null;
  header: HeaderData;
  /** rows in the current pane before filtering */
  paneTotal: number;
  onKey(input: string, key: Key): void;
}

/** The header's figures. */
export interface HeaderData {
  totals: AttemptTotals;
  perMinute: number;
  jobs: { total: number; running: number; pending: number };
  requests: RequestTotals;
  loading: boolean;
  /** since when the disk holding the database has been seen full (unix ms); null while it is not */
  storageFullSince: number | null;
}

/** A pane's shown rows as the cursor sees them: how many, the id at a position, the position of an id. */
function paneList(feed: WatchFeed, pane: Pane): { length: number; idAt(i: number): RowId | undefined; position(id: RowId): number } {
  if (pane === 'jobs') return { length: feed.jobs.length, idAt: (i) => feed.jobs.at(i)?.id, position: (id) => Math.max(0, feed.jobs.indexOf(id as string)) };
  const log = pane === 'attempts' ? feed.attempts : feed.requests;
  return { length: log.length, idAt: (i) => log.at(i)?.id, position: (id) => log.positionOf(id as number) };
}

function selectedIndex(feed: WatchFeed, pane: Pane, s: ViewState): number {
  const sel = s.panes[pane].selected;
  if (sel === null) return 0;
  const list = paneList(feed, pane);
  return Math.max(0, Math.min(list.position(sel), list.length - 1));
}

/** Each pane's filter: the fields its words may name, and how its list is narrowed. */
const PANE_FILTERS: Record<Pane, { fields: readonly string[]; apply(feed: WatchFeed, terms: FilterTerm[], failuresOnly: boolean): void }> = {
  attempts: { fields: ATTEMPT_FIELDS, apply: (feed, terms, f) => feed.attempts.setFilter((r) => attemptMatches(r, terms, f)) },
  jobs: { fields: JOB_FIELDS, apply: (feed, terms, f) => feed.jobs.setFilter((r) => jobMatches(r, terms, f)) },
  received: { fields: REQUEST_FIELDS, apply: (feed, terms, f) => feed.requests.setFilter((r) => requestMatches(r, terms, f)) },
};

function windowOf<T>(length: number, at: (i: number) => T | undefined, index: number, line: number, height: number): PaneWindow<T> {
  const start = windowStart(index, line, length, height);
  const rows: T[] = [];
  // Only the visible rows are read: 100,000 loaded attempts cost no more than 20.
  for (let i = start; i < Math.min(length, start + height); i++) rows.push(at(i)!);
  return { rows, start, selected: index, length };
}

/** Applies a pane's filter words and failures switch to the feed's lists. */
function applyFilters(feed: WatchFeed, before: ViewState | null, after: ViewState): string | null {
  let warning: string | null = null;
  for (const pane of PANES) {
    const p = after.panes[pane];
    if (before && before.panes[pane].filter === p.filter && before.panes[pane].failuresOnly === p.failuresOnly) continue;
    const { fields, apply } = PANE_FILTERS[pane];
    const terms = parseFilter(p.filter);
    const bad = unknownFields(terms, fields);
    if (bad.length) warning = `unknown filter field ${bad.join(', ')} (${pane} know ${fields.join(', ')})`;
    apply(feed, terms, p.failuresOnly);
  }
  return warning;
}

/** The watch's state and behaviour: follows the feed, windows the lists, handles keys. */
export function useWatch(feed: WatchFeed, opts: { size?: ScreenSize; onQuit: () => void }): WatchView {
  const version = useFeed(feed);
  const now = useClock();
  const size = useScreenSize(opts.size);
  const [state, setState] = useState<ViewState>(initialViewState);
  const stateRef = useRef(state);
  const [refresh, setRefresh] = useState(0);
  const pageHeight = Math.max(2, size.rows - CHROME_LINES);
  // The detail view spends one line on its title.
  const detailHeight = pageHeight - 1;

  const detail = useMemo(() => {
    if (state.mode !== 'detail' || state.detail === null) return null;
    if (state.pane === 'attempts') {
      const d = feed.source.attempt(state.detail as number);
      return d ? attemptDetailLines(d) : [{ text: 'This attempt no longer exists (retention).', tone: 'dim' as const }];
    }
    if (state.pane === 'received') {
      const d = feed.source.request(state.detail as number);
      return d ? requestDetailLines(d, size.columns) : [{ text: 'This request no longer exists (retention).', tone: 'dim' as const }];
    }
    const d = feed.source.job(state.detail as string);
    return d ? jobDetailLines(d) : [{ text: 'This job no longer exists.', tone: 'dim' as const }];
    // `version` and `refresh`: a job's counts, a hook's state and tel's side of a try change under the view.
  }, [feed, state.mode, state.pane, state.detail, version, refresh, size.columns]);

  const attempts = windowOf(feed.attempts.length, (i) => feed.attempts.at(i), selectedIndex(feed, 'attempts', state), state.panes.attempts.line, pageHeight);
  const jobs = windowOf(feed.jobs.length, (i) => feed.jobs.at(i), selectedIndex(feed, 'jobs', state), state.panes.jobs.line, pageHeight);
  const received = windowOf(feed.requests.length, (i) => feed.requests.at(i), selectedIndex(feed, 'received', state), state.panes.received.line, pageHeight);

  const dispatch = (next: ViewState) => {
    const warning = applyFilters(feed, stateRef.current, next);
    if (warning) next = { ...next, message: warning };
    stateRef.current = next;
    setState(next);
  };

  /** The hook of the selected (or opened) attempt or received request. */
  const selectedHook = (s: ViewState): { accountId: string | null; hookId: string | null } | undefined => {
    const opened = s.mode === 'detail' && s.detail !== null ? (s.detail as number) : undefined;
    if (s.pane === 'attempts') return opened !== undefined ? feed.source.attempt(opened) : feed.attempts.at(selectedIndex(feed, 'attempts', s));
    return opened !== undefined ? feed.source.request(opened) : feed.requests.at(selectedIndex(feed, 'received', s));
  };

  const reenable = (s: ViewState) => {
    if (s.pane === 'jobs') return dispatch({ ...s, message: 'r re-enables a hook: select one of its attempts (1) or received requests (3).' });
    const row = selectedHook(s);
    if (!row) return dispatch({ ...s, message: 'Nothing selected.' });
    if (!row.accountId || !row.hookId) return dispatch({ ...s, message: 'This request names no hook of this database.' });
    const outcome = feed.source.reenableHook(row.accountId, row.hookId);
    feed.poll(true);
    setRefresh((n) => n + 1);
    dispatch({ ...s, message: outcome.message });
  };

  const onKey = (input: string, key: Key): void => {
    // A fast typist or a held key can deliver several keys in one read; ink hands them over
    // as one string. Outside the filter prompt each character is a key of its own.
    if (input.length > 1 && stateRef.current.mode !== 'filter' && !key.ctrl && !key.meta) {
      for (const ch of input) onKey(ch, key);
      return;
    }
    const s = stateRef.current;
    const command = commandFor(input, key, s, pageHeight);
    if (!command) return;
    if (command.type === 'quit') return opts.onQuit();
    if (command.type === 'reenable') return reenable(s);
    const list = paneList(feed, s.pane);
    const ctx: ListContext = {
      length: list.length,
      index: selectedIndex(feed, s.pane, s),
      idAt: list.idAt,
      height: s.mode === 'detail' ? detailHeight : pageHeight,
      detailLines: detail?.length ?? 0,
    };
    dispatch(reduce(s, command, ctx));
  };

  const statusCounts = feed.jobs.statusCounts();
  const header: HeaderData = {
    totals: { ...feed.attempts.totals },
    perMinute: feed.attempts.countSince(now - 60_000),
    jobs: { total: feed.jobs.total, running: statusCounts.running ?? 0, pending: statusCounts.pending ?? 0 },
    requests: { ...feed.requests.totals },
    loading: !feed.historyDone,
    storageFullSince: feed.storageFullSince,
  };
  const paneTotal = { attempts: feed.attempts.totals.total, jobs: feed.jobs.total, received: feed.requests.totals.total }[state.pane];
  return { state, size, now, pageHeight, detailHeight, attempts, jobs, received, detail, header, paneTotal, onKey };
}

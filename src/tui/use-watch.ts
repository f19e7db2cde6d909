import { useMemo, useRef, useState } from 'react';
import type { Key } from 'ink';
import type { WatchFeed } from './feed.js';
import type { AttemptTotals } from './model.js';
import { attemptMatches, ATTEMPT_FIELDS, JOB_FIELDS, jobMatches, parseFilter, unknownFields } from './filter.js';
import { attemptDetailLines, jobDetailLines, type DetailLine } from './detail-lines.js';
import { commandFor } from './keys.js';
import type { WatchedAttempt, WatchedJob } from './types.js';
import { useClock } from './use-clock.js';
import { useFeed } from './use-feed.js';
import { useScreenSize, type ScreenSize } from './use-screen-size.js';
import { initialViewState, reduce, windowStart, type ListContext, type Pane, type ViewState } from './view-state.js';

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
  loading: boolean;
}

function selectedIndex(feed: WatchFeed, pane: Pane, s: ViewState): number {
  const sel = s.panes[pane].selected;
  if (sel === null) return 0;
  const length = pane === 'attempts' ? feed.attempts.length : feed.jobs.length;
  const i = pane === 'attempts' ? feed.attempts.positionOf(sel as number) : Math.max(0, feed.jobs.indexOf(sel as string));
  return Math.max(0, Math.min(i, length - 1));
}

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
  const a = after.panes.attempts;
  if (!before || before.panes.attempts.filter !== a.filter || before.panes.attempts.failuresOnly !== a.failuresOnly) {
    const terms = parseFilter(a.filter);
    const bad = unknownFields(terms, ATTEMPT_FIELDS);
    if (bad.length) warning = `unknown filter field ${bad.join(', ')} (attempts know ${ATTEMPT_FIELDS.join(', ')})`;
    feed.attempts.setFilter((r) => attemptMatches(r, terms, a.failuresOnly));
  }
  const j = after.panes.jobs;
  if (!before || before.panes.jobs.filter !== j.filter || before.panes.jobs.failuresOnly !== j.failuresOnly) {
    const terms = parseFilter(j.filter);
    const bad = unknownFields(terms, JOB_FIELDS);
    if (bad.length) warning = `unknown filter field ${bad.join(', ')} (jobs know ${JOB_FIELDS.join(', ')})`;
    feed.jobs.setFilter((r) => jobMatches(r, terms, j.failuresOnly));
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
    const d = feed.source.job(state.detail as string);
    return d ? jobDetailLines(d) : [{ text: 'This job no longer exists.', tone: 'dim' as const }];
    // `version` and `refresh`: a job's counts and a hook's state change under the view.
  }, [feed, state.mode, state.pane, state.detail, version, refresh]);

  const aIndex = selectedIndex(feed, 'attempts', state);
  const jIndex = selectedIndex(feed, 'jobs', state);
  const attempts = windowOf(feed.attempts.length, (i) => feed.attempts.at(i), aIndex, state.panes.attempts.line, pageHeight);
  const jobs = windowOf(feed.jobs.length, (i) => feed.jobs.at(i), jIndex, state.panes.jobs.line, pageHeight);

  const dispatch = (next: ViewState) => {
    const warning = applyFilters(feed, stateRef.current, next);
    if (warning) next = { ...next, message: warning };
    stateRef.current = next;
    setState(next);
  };

  const reenable = (s: ViewState) => {
    if (s.pane !== 'attempts') return dispatch({ ...s, message: 'r re-enables a hook: select one of its attempts in the Attempts pane (1).' });
    const row =
      s.mode === 'detail' && s.detail !== null
        ? feed.source.attempt(s.detail as number)
        : feed.attempts.at(selectedIndex(feed, 'attempts', s));
    if (!row) return dispatch({ ...s, message: 'No attempt selected.' });
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
    const pane = s.pane;
    const ctx: ListContext = {
      length: pane === 'attempts' ? feed.attempts.length : feed.jobs.length,
      index: selectedIndex(feed, pane, s),
      idAt: (i) => (pane === 'attempts' ? feed.attempts.at(i)?.id : feed.jobs.at(i)?.id),
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
    loading: !feed.historyDone,
  };
  const paneTotal = state.pane === 'attempts' ? feed.attempts.totals.total : feed.jobs.total;
  return { state, size, now, pageHeight, detailHeight, attempts, jobs, detail, header, paneTotal, onKey };
}

/** The panes, in the order Tab visits them. */
export const PANES = ['attempts', 'jobs', 'received'] as const;
export type Pane = (typeof PANES)[number];

/** A row's id in either pane. */
export type RowId = number | string;

/** Where a pane's cursor is and what it shows. */
export interface PaneState {
  /** the selected row, or null to stay on the newest row as new ones arrive */
  selected: RowId | null;
  /** the screen line the selection sits on, so arriving rows do not move it */
  line: number;
  filter: string;
  failuresOnly: boolean;
}

/** Everything the screen shows besides the data. */
export interface ViewState {
  pane: Pane;
  panes: Record<Pane, PaneState>;
  mode: 'list' | 'detail' | 'filter';
  /** the row the detail view shows */
  detail: RowId | null;
  detailScroll: number;
  /** filter text being typed after `/` */
  draft: string;
  message: string | null;
}

/** What the reducer needs to know about the current pane's list. */
export interface ListContext {
  length: number;
  /** lines available for rows */
  height: number;
  /** position of the selected row (0 = newest) */
  index: number;
  idAt(i: number): RowId | undefined;
  /** lines of the detail view, to bound its scrolling */
  detailLines: number;
}

export type Action =
  | { type: 'pane'; pane: Pane }
  | { type: 'nextPane' }
  | { type: 'move'; delta: number }
  | { type: 'top' }
  | { type: 'bottom' }
  | { type: 'open' }
  | { type: 'close' }
  | { type: 'filterStart' }
  | { type: 'filterType'; text: string }
  | { type: 'filterBackspace' }
  | { type: 'filterApply' }
  | { type: 'filterCancel' }
  | { type: 'clearFilters' }
  | { type: 'toggleFailures' }
  | { type: 'message'; text: string | null };

const emptyPane: PaneState = { selected: null, line: 0, filter: '', failuresOnly: false };

/** The state the watch starts in: Attempts pane, following the newest row. */
export function initialViewState(pane: Pane = 'attempts'): ViewState {
  return {
    pane,
    panes: { attempts: { ...emptyPane }, jobs: { ...emptyPane }, received: { ...emptyPane } },
    mode: 'list',
    detail: null,
    detailScroll: 0,
    draft: '',
    message: null,
  };
}

/** First row shown so that the selection stays on its screen line, within bounds. */
export function windowStart(index: number, line: number, length: number, height: number): number {
  return Math.max(0, Math.min(index - line, length - height));
}

function withPane(s: ViewState, patch: Partial<PaneState>): ViewState {
  return { ...s, panes: { ...s.panes, [s.pane]: { ...s.panes[s.pane], ...patch } } };
}

function moveTo(s: ViewState, ctx: ListContext, target: number): ViewState {
  if (ctx.length === 0) return withPane(s, { selected: null, line: 0 });
  const index = Math.max(0, Math.min(ctx.length - 1, target));
  const p = s.panes[s.pane];
  const line = Math.max(0, Math.min(ctx.height - 1, p.line + (index - ctx.index), index));
  return withPane(s, { selected: index === 0 ? null : (ctx.idAt(index) ?? null), line });
}

function resetCursor(s: ViewState): ViewState {
  return withPane(s, { selected: null, line: 0 });
}

/** Applies one user action to the view state. */
export function reduce(s: ViewState, a: Action, ctx: ListContext): ViewState {
  switch (a.type) {
    case 'pane':
      return { ...s, pane: a.pane, mode: 'list', detail: null, message: null };
    case 'nextPane':
      return { ...s, pane: PANES[(PANES.indexOf(s.pane) + 1) % PANES.length], mode: 'list', detail: null, message: null };
    case 'move':
      if (s.mode === 'detail') {
        const max = Math.max(0, ctx.detailLines - ctx.height);
        return { ...s, detailScroll: Math.max(0, Math.min(max, s.detailScroll + a.delta)) };
      }
      return moveTo(s, ctx, ctx.index + a.delta);
    case 'top':
      return s.mode === 'detail' ? { ...s, detailScroll: 0 } : moveTo(s, ctx, 0);
    case 'bottom':
      return s.mode === 'detail' ? { ...s, detailScroll: Math.max(0, ctx.detailLines - ctx.height) } : moveTo(s, ctx, ctx.length - 1);
    case 'open': {
      const id = ctx.idAt(ctx.index);
      return id === undefined ? s : { ...s, mode: 'detail', detail: id, detailScroll: 0, message: null };
    }
    case 'close':
      return { ...s, mode: 'list', detail: null, message: null };
    case 'filterStart':
      return { ...s, mode: 'filter', draft: s.panes[s.pane].filter, message: null };
    case 'filterType':
      return { ...s, draft: s.draft + a.text };
    case 'filterBackspace':
      return { ...s, draft: s.draft.slice(0, -1) };
    case 'filterApply':
      return resetCursor(withPane({ ...s, mode: 'list' }, { filter: s.draft.trim() }));
    case 'filterCancel':
      return { ...s, mode: 'list', draft: '' };
    case 'clearFilters':
      return resetCursor(withPane({ ...s, message: null }, { filter: '', failuresOnly: false }));
    case 'toggleFailures':
      return resetCursor(withPane(s, { failuresOnly: !s.panes[s.pane].failuresOnly }));
    case 'message':
      return { ...s, message: a.text };
  }
}

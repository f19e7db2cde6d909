import type { Key } from 'ink';
import type { Action, ViewState } from './view-state.js';

/** A key's meaning: a view action, or one of the commands with effects outside the view. */
export type Command = Action | { type: 'quit' } | { type: 'reenable' };

/** The footer's key help, per mode. */
export const KEY_HELP: Record<ViewState['mode'], string> = {
  list: 'Tab/1/2/3 pane  ↑↓/jk move  Enter detail  / filter  f failures  Esc clear  r re-enable  q quit',
  detail: '↑↓/jk scroll  Esc/Enter back  r re-enable  Tab/1/2/3 pane  q quit',
  filter: 'type words (account: hook: result: status: event: resource: id: verdict: path: method:)  Enter apply  Esc cancel',
};

/** Translates one key press into a command, or null when the key means nothing here. */
export function commandFor(input: string, key: Key, state: ViewState, page: number): Command | null {
  if (state.mode === 'filter') {
    if (key.return) return { type: 'filterApply' };
    if (key.escape) return { type: 'filterCancel' };
    if (key.backspace || key.delete) return { type: 'filterBackspace' };
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return null;
    // Pasted text arrives whole; keep only printable characters.
    const text = input.replace(/[\u0000-\u001f\u007f]/g, '');
    return text ? { type: 'filterType', text } : null;
  }
  if (key.ctrl && input === 'c') return { type: 'quit' };
  if (key.tab) return { type: 'nextPane' };
  if (key.upArrow || input === 'k') return { type: 'move', delta: -1 };
  if (key.downArrow || input === 'j') return { type: 'move', delta: 1 };
  if (key.pageUp) return { type: 'move', delta: -page };
  if (key.pageDown || input === ' ') return { type: 'move', delta: page };
  if (key.home || input === 'g') return { type: 'top' };
  if (key.end || input === 'G') return { type: 'bottom' };
  if (key.escape) return state.mode === 'detail' ? { type: 'close' } : { type: 'clearFilters' };
  if (key.return) return state.mode === 'detail' ? { type: 'close' } : { type: 'open' };
  switch (input) {
    case 'q':
      return { type: 'quit' };
    case '1':
      return { type: 'pane', pane: 'attempts' };
    case '2':
      return { type: 'pane', pane: 'jobs' };
    case '3':
      return { type: 'pane', pane: 'received' };
    case '/':
      return state.mode === 'list' ? { type: 'filterStart' } : null;
    case 'f':
      return state.mode === 'list' ? { type: 'toggleFailures' } : null;
    case 'r':
      return { type: 'reenable' };
    default:
      return null;
  }
}

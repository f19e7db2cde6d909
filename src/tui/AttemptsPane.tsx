import { attemptColumns } from './format.js';
import { Table } from './Table.js';
import type { WatchedAttempt } from './types.js';
import type { PaneWindow } from './use-watch.js';

/** The Attempts pane: newest first, failures in red. */
export function AttemptsPane({ win, width, now, filtered }: { win: PaneWindow<WatchedAttempt>; width: number; now: number; filtered: boolean }) {
  return (
    <Table
      columns={attemptColumns(width - 2)}
      rows={win.rows}
      selected={win.selected - win.start}
      now={now}
      colorOf={(r) => (r.result === 'failure' ? 'red' : undefined)}
      keyOf={(r) => r.id}
      empty={filtered ? 'No attempt matches the filter (Esc clears it).' : 'No webhook attempts yet; new ones appear here as they are made.'}
    />
  );
}

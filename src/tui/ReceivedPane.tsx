import { requestColumns } from './format.js';
import { Table } from './Table.js';
import type { WatchedRequest } from './types.js';
import type { PaneWindow } from './use-watch.js';
import { requestFailed } from './filter.js';

/** The Received pane: what `tel sink` got, newest first, with its signature verdict; trouble in red. */
export function ReceivedPane({ win, width, now, filtered }: { win: PaneWindow<WatchedRequest>; width: number; now: number; filtered: boolean }) {
  return (
    <Table
      columns={requestColumns(width - 2)}
      rows={win.rows}
      selected={win.selected - win.start}
      now={now}
      colorOf={(r) => (requestFailed(r) ? 'red' : undefined)}
      keyOf={(r) => r.id}
      empty={filtered ? 'No request matches the filter (Esc clears it).' : 'Nothing received yet; `tel sink` records what reaches it here.'}
    />
  );
}

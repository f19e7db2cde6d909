import { jobColumns } from './format.js';
import { Table } from './Table.js';
import type { WatchedJob } from './types.js';
import type { PaneWindow } from './use-watch.js';

const STATUS_COLORS: Record<string, string> = { failed: 'red', running: 'yellow', complete: 'green' };

/** The Jobs pane: newest first, with a progress bar of done out of total. */
export function JobsPane({ win, width, now, filtered }: { win: PaneWindow<WatchedJob>; width: number; now: number; filtered: boolean }) {
  return (
    <Table
      columns={jobColumns(width - 2)}
      rows={win.rows}
      selected={win.selected - win.start}
      now={now}
      colorOf={(r) => STATUS_COLORS[r.status]}
      keyOf={(r) => r.id}
      empty={filtered ? 'No job matches the filter (Esc clears it).' : 'No number jobs yet; `tel jobs create` or PUT …/resources/jobs starts one.'}
    />
  );
}

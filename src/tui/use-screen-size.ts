import { useWindowSize } from 'ink';

/** Terminal size in cells. */
export interface ScreenSize {
  columns: number;
  rows: number;
}

/** The terminal's size, following resizes, unless a fixed size is given (tests, captures). */
export function useScreenSize(fixed?: ScreenSize): ScreenSize {
  const live = useWindowSize();
  return fixed ?? { columns: live.columns, rows: live.rows };
}

import { Box, Text } from 'ink';
import { tableLine, titleLine, type Column } from './format.js';

/** Props of a windowed table: only the rows given are drawn. */
export interface TableProps<T> {
  columns: Column<T>[];
  rows: T[];
  /** index in `rows` of the selected row, or -1 */
  selected: number;
  now: number;
  /** a colour for a whole row (failures in red) */
  colorOf(row: T): string | undefined;
  empty: string;
  keyOf(row: T): string | number;
}

/** A table title and the visible rows, the selected one marked `›` and in inverse video. */
export function Table<T>({ columns, rows, selected, now, colorOf, empty, keyOf }: TableProps<T>) {
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        {`  ${titleLine(columns)}`}
      </Text>
      {rows.length === 0 ? (
        <Text dimColor>{empty}</Text>
      ) : (
        rows.map((row, i) => (
          <Text key={keyOf(row)} color={colorOf(row)} inverse={i === selected} wrap="truncate">
            {`${i === selected ? '›' : ' '} ${tableLine(columns, row, now)}`}
          </Text>
        ))
      )}
    </Box>
  );
}

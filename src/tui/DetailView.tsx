import { Box, Text } from 'ink';
import type { DetailLine } from './detail-lines.js';
import { escapeControls } from '../util/text.js';

const TONES: Record<NonNullable<DetailLine['tone']>, { color?: string; bold?: boolean; dimColor?: boolean }> = {
  title: { bold: true },
  section: { bold: true, color: 'cyan' },
  bad: { color: 'red' },
  good: { color: 'green' },
  dim: { dimColor: true },
  hint: { color: 'yellow' },
};

/** The detail of one attempt or job, scrolled to `scroll`, `height` lines tall. */
export function DetailView({ lines, scroll, height }: { lines: DetailLine[]; scroll: number; height: number }) {
  const visible = lines.slice(scroll, scroll + height);
  const more = lines.length - scroll - visible.length;
  return (
    <Box flexDirection="column">
      {visible.map((l, i) => (
        <Text key={scroll + i} wrap="truncate" {...(l.tone ? TONES[l.tone] : {})}>
          {escapeControls(l.text) || ' '}
        </Text>
      ))}
      {more > 0 ? <Text dimColor>{`… ${more} more lines (↓/j)`}</Text> : null}
    </Box>
  );
}

import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import { KEY_HELP } from './keys.js';
import type { ViewState } from './view-state.js';
import { escapeControls } from '../util/text.js';

/** Status line (filter prompt, message or active filters) and the keys of the current mode. */
export function Footer({ state, shown, total }: { state: ViewState; shown: number; total: number }) {
  const p = state.panes[state.pane];
  let status: ReactNode;
  if (state.mode === 'filter') {
    status = (
      <Text>
        <Text color="yellow">/</Text>
        {state.draft}
        <Text inverse> </Text>
      </Text>
    );
  } else if (state.message) {
    status = <Text color="yellow" wrap="truncate">{escapeControls(state.message)}</Text>;
  } else if (p.filter || p.failuresOnly) {
    const parts = [p.failuresOnly ? 'failures only' : '', p.filter ? `filter "${p.filter}"` : ''].filter(Boolean);
    status = <Text color="yellow" wrap="truncate">{`${parts.join(', ')}: ${shown} of ${total} shown (Esc clears)`}</Text>;
  } else {
    status = <Text dimColor wrap="truncate">{`${shown} shown`}</Text>;
  }
  return (
    <Box flexDirection="column">
      {status}
      <Text dimColor wrap="truncate">
        {KEY_HELP[state.mode]}
      </Text>
    </Box>
  );
}

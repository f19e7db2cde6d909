import { Box, Text, useApp, useInput, useStdin } from 'ink';
import type { WatchFeed } from './feed.js';
import { AttemptsPane } from './AttemptsPane.js';
import { DetailView } from './DetailView.js';
import { Footer } from './Footer.js';
import { Header } from './Header.js';
import { JobsPane } from './JobsPane.js';
import { ReceivedPane } from './ReceivedPane.js';
import type { ScreenSize } from './use-screen-size.js';
import { useWatch } from './use-watch.js';

/** Props of the watch screen. */
export interface AppProps {
  feed: WatchFeed;
  /** what is watched: the database and the account scope */
  scope: string;
  /** a fixed screen size (tests); the terminal's otherwise */
  size?: ScreenSize;
}

const DETAIL_TITLES = { attempts: 'Attempt detail', jobs: 'Job detail', received: 'Received request: sent and received side by side' } as const;

/** The `tel watch` screen: header, the current pane or a detail view, footer. */
export function App({ feed, scope, size }: AppProps) {
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  const v = useWatch(feed, { size, onQuit: () => exit() });
  useInput(v.onKey, { isActive: isRawModeSupported });
  const { state } = v;
  const pane = state.panes[state.pane];
  const filtered = pane.filter !== '' || pane.failuresOnly;
  const win = { attempts: v.attempts, jobs: v.jobs, received: v.received }[state.pane];
  return (
    <Box flexDirection="column" width={v.size.columns}>
      <Header pane={state.pane} scope={scope} {...v.header} />
      {state.mode === 'detail' && v.detail ? (
        <Box flexDirection="column" height={v.pageHeight + 1}>
          <Text bold>{DETAIL_TITLES[state.pane]}</Text>
          <DetailView lines={v.detail} scroll={state.detailScroll} height={v.detailHeight} />
        </Box>
      ) : (
        <Box flexDirection="column" height={v.pageHeight + 1}>
          {state.pane === 'attempts' ? (
            <AttemptsPane win={v.attempts} width={v.size.columns} now={v.now} filtered={filtered} />
          ) : state.pane === 'jobs' ? (
            <JobsPane win={v.jobs} width={v.size.columns} now={v.now} filtered={filtered} />
          ) : (
            <ReceivedPane win={v.received} width={v.size.columns} now={v.now} filtered={filtered} />
          )}
        </Box>
      )}
      <Footer state={state} shown={win.length} total={v.paneTotal} />
    </Box>
  );
}

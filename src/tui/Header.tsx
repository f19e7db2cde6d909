import { Box, Text } from 'ink';
import { clock, count } from './format.js';
import { escapeControls } from '../util/text.js';
import type { AttemptTotals, RequestTotals } from './model.js';
import type { Pane } from './view-state.js';

/** What the header shows. */
export interface HeaderProps {
  pane: Pane;
  scope: string;
  totals: AttemptTotals;
  perMinute: number;
  jobs: { total: number; running: number; pending: number };
  requests: RequestTotals;
  loading: boolean;
  /** since when the disk holding the database has been seen full; null while it is not */
  storageFullSince: number | null;
}

function Tab({ label, active }: { label: string; active: boolean }) {
  return active ? (
    <Text bold inverse>
      {` ${label} `}
    </Text>
  ) : (
    <Text dimColor>{` ${label} `}</Text>
  );
}

/** Title, pane tabs, scope, and the totals with the delivery rate. */
export function Header({ pane, scope, totals, perMinute, jobs, requests, loading, storageFullSince }: HeaderProps) {
  const rate = totals.total ? `${((totals.successes / totals.total) * 100).toFixed(1)}%` : '-';
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold color="cyan">
          tel watch{' '}
        </Text>
        <Tab label="1 Attempts" active={pane === 'attempts'} />
        <Tab label="2 Jobs" active={pane === 'jobs'} />
        <Tab label="3 Received" active={pane === 'received'} />
        {storageFullSince !== null ? (
          <Text bold color="red">{`  storage full since ${clock(storageFullSince).slice(0, 5)}`}</Text>
        ) : null}
        <Text dimColor wrap="truncate">{`  ${escapeControls(scope)}${loading ? '  (loading history…)' : ''}`}</Text>
      </Box>
      <Text wrap="truncate">
        {`attempts ${count(totals.total)}  `}
        <Text color="green">{`ok ${count(totals.successes)}`}</Text>
        {'  '}
        <Text color={totals.failures ? 'red' : undefined}>{`failed ${count(totals.failures)}`}</Text>
        {`  delivered ${rate}  ${count(perMinute)}/min   jobs ${count(jobs.total)}`}
        {jobs.running ? <Text color="yellow">{`  ${count(jobs.running)} running`}</Text> : null}
        {jobs.pending ? `  ${count(jobs.pending)} pending` : ''}
        {requests.total ? `   received ${count(requests.total)}` : ''}
        {requests.bad ? <Text color="red">{`  ${count(requests.bad)} bad signatures`}</Text> : null}
      </Text>
    </Box>
  );
}

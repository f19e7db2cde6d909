import { createElement } from 'react';
import { render } from 'ink';
import { App } from './App.js';
import type { WatchFeed } from './feed.js';

/** Runs the live screen until the user quits. Loaded only by `tel watch` on a terminal. */
export async function runScreen(feed: WatchFeed, scope: string): Promise<void> {
  // The caller checked that stdout is a terminal; Ink would otherwise stay silent wherever a
  // CI variable is set, even on a terminal.
  const app = render(createElement(App, { feed, scope }), { alternateScreen: true, interactive: true });
  await app.waitUntilExit();
}

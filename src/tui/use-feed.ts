import { useEffect, useSyncExternalStore } from 'react';
import type { WatchFeed } from './feed.js';

/** Follows the feed while mounted; answers its version, which changes with every new row. */
export function useFeed(feed: WatchFeed): number {
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);
  return useSyncExternalStore(
    (onChange) => feed.subscribe(onChange),
    () => feed.version,
  );
}

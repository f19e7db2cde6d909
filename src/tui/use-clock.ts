import { useEffect, useState } from 'react';

/** The current time, refreshed every `everyMs` (ages and the per-minute rate move with it). */
export function useClock(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

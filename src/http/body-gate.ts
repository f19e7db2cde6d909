/**
 * How many large request bodies are read and handled at once. A 5 MB body costs some 40 MB while
 * it is read, parsed, checked and answered (its bytes, its text, its objects, an answer that may
 * quote it); sixteen at once took the server from 100 MB to 400. Past LARGE_BODY_BYTES a request
 * waits for one of LARGE_BODY_SLOTS before its body is read (TCP holds the rest meanwhile); only
 * requests with a valid token may send more than 64 KiB anyway.
 */
export const LARGE_BODY_BYTES = 1024 * 1024;
const LARGE_BODY_SLOTS = 2;

let inUse = 0;
let handled = 0;
const waiting: (() => void)[] = [];

/**
 * How many large bodies this process has finished with (the memory tidy collects after them):
 * counted when a slot is released, so that a collection made while a body was still being read
 * and handled is not taken for one made after it.
 */
export function largeBodiesSince(): number {
  return handled;
}

/**
 * Waits for a slot; answers its release (call it once). A body handed unparsed to another thread
 * (a number job's) is not `counted` for the memory tidy: it leaves this heap only its buffer,
 * which the next minor collection frees, and the tidy's full collection (20-40 ms, twice) held
 * requests answered during a 100,000-number job for as long.
 */
export async function largeBodySlot(counted = true): Promise<() => void> {
  if (inUse < LARGE_BODY_SLOTS) inUse++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (counted) handled++;
    const next = waiting.shift();
    if (next) next();
    else inUse--;
  };
}

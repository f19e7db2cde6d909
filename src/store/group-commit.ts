import { BUSY_TIMEOUT_MS, isBusy, savepoint, transaction, withoutBusyWait, type Db } from './db.js';

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Group {
  jobs: Job[];
  scheduled: boolean;
}

/** How long a group waits between tries while another process holds the file. */
const BUSY_RETRY_MS = 10;

const groups = new WeakMap<Db, Group>();

/** Units one transaction takes at most; the others run in the next turn. */
const MAX_UNITS_A_COMMIT = 64;

const limits = new WeakMap<Db, () => number>();

/**
 * Lets whoever works on what the commits produce ask for smaller ones while it falls behind:
 * `limit()`, asked each turn, is how many units the next transaction may take (the others run
 * in the next turns, after the I/O that came meanwhile). The delivery sender asks for 8 while a
 * target's queue nears what it may hold in memory: deliveries, whose answers are I/O, then keep
 * pace with the calls that make them rather than fall behind into a backlog on disk, which costs
 * more to claim back than to send at once. Answers the function that removes the limit.
 */
export function limitUnitsPerCommit(db: Db, limit: () => number): () => void {
  limits.set(db, limit);
  return () => {
    if (limits.get(db) === limit) limits.delete(db);
  };
}

/** Units the next transaction may take: the limit asked for, if any (one at least). */
function unitsNow(db: Db): number {
  let limit = Infinity;
  try {
    limit = limits.get(db)?.() ?? Infinity;
  } catch {
    /* a limit that cannot tell: none */
  }
  return Math.max(1, Math.min(MAX_UNITS_A_COMMIT, limit));
}

/**
 * Runs `fn` in a transaction shared with the other units submitted during the same turn of the
 * event loop and the next (up to MAX_UNITS_A_COMMIT of them, or fewer: see limitUnitsPerCommit),
 * and resolves with its result once that transaction has committed (so an answer sent after it is
 * durable).
 * Many small writes (simulated calls fired by dozens of clients) then cost one commit together
 * instead of one each. A unit that throws is undone alone and its promise rejects; the others
 * commit. For that the group is first run straight through, and only when a unit throws is it
 * rolled back and run again with a savepoint per unit: so a unit must be safe to run twice when
 * its first run was rolled back (its writes are, and so are the settle hooks it registered; see
 * `onSettle`).
 */
export function groupCommit<T>(db: Db, fn: () => T): Promise<T> {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = { jobs: [], scheduled: false }));
  const g = group;
  return new Promise<T>((resolve, reject) => {
    g.jobs.push({ fn, resolve: resolve as (value: unknown) => void, reject });
    if (g.scheduled) return;
    g.scheduled = true;
    // After the I/O callbacks of this turn and of the next: the requests that arrived with this
    // one join it, and so do those whose clients the last commit answered and who asked again
    // meanwhile. Clients that each wait for their answer (32 firing simulated calls) otherwise
    // split into two cohorts committed in turns, ~16 units each; waiting one more turn (a poll
    // that does not block) makes them one group of ~32, whose b-trees' last pages go to the log
    // once instead of twice: 7-10% fewer bytes written a delivery, 3-10% less CPU
    // (scripts/bench/delivery-cost.mjs, four runs), 9-10% more deliveries a second in
    // ../shared/bench/webhooks.mjs (`npm run bench:compare`, two runs of 5 and 6 rounds).
    const run = () => {
      const batch = g.jobs.splice(0, unitsNow(db));
      if (g.jobs.length > 0) setImmediate(run);
      else g.scheduled = false;
      runGroup(db, batch, Date.now() + BUSY_TIMEOUT_MS);
    };
    setImmediate(() => setImmediate(run));
  });
}

/** A unit threw: the group is run again unit by unit. */
class UnitFailed extends Error {}

function runGroup(db: Db, jobs: Job[], giveUpAt: number): void {
  let outcomes: { ok: boolean; value: unknown }[];
  try {
    // A lock another connection holds is met at once, and the group tried again on a timer: the
    // busy timeout waits on the event loop (250 ms in a server, each try), and a number job's
    // thread holds the lock between its batches nearly all the time.
    outcomes = withoutBusyWait(db, () => {
      try {
        // the usual case: nothing throws, and no unit pays for a savepoint
        return transaction(db, () =>
          jobs.map((job) => {
            try {
              return { ok: true, value: job.fn() };
            } catch {
              throw new UnitFailed();
            }
          }),
        );
      } catch (err) {
        if (!(err instanceof UnitFailed)) throw err;
        return transaction(db, () =>
          jobs.map((job) => {
            try {
              return { ok: true, value: savepoint(db, job.fn) };
            } catch (unitErr) {
              return { ok: false, value: unitErr };
            }
          }),
        );
      }
    });
  } catch (err) {
    // Another process holds the file: try again a little later, the event loop free meanwhile
    // (units that arrive in between form the next group).
    if (isBusy(err) && Date.now() < giveUpAt) {
      setTimeout(() => runGroup(db, jobs, giveUpAt), BUSY_RETRY_MS);
      return;
    }
    // the transaction itself failed (BEGIN or COMMIT): nothing of the group was kept
    for (const job of jobs) job.reject(err);
    return;
  }
  jobs.forEach((job, i) => (outcomes[i].ok ? job.resolve(outcomes[i].value) : job.reject(outcomes[i].value)));
}

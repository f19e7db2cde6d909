import { savepoint, transaction, type Db } from './db.js';

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Group {
  jobs: Job[];
  scheduled: boolean;
}

const groups = new WeakMap<Db, Group>();

/**
 * Runs `fn` in a transaction shared with the other units submitted during the same turn of the
 * event loop, and resolves with its result once that transaction has committed (so an answer
 * sent after it is durable). Each unit is a savepoint: one that throws is undone alone and its
 * promise rejects, the others commit. Many small writes (simulated calls fired by dozens of
 * clients) then cost one commit together instead of one each.
 */
export function groupCommit<T>(db: Db, fn: () => T): Promise<T> {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = { jobs: [], scheduled: false }));
  const g = group;
  return new Promise<T>((resolve, reject) => {
    g.jobs.push({ fn, resolve: resolve as (value: unknown) => void, reject });
    if (g.scheduled) return;
    g.scheduled = true;
    // after the I/O callbacks of this turn: every request that arrived with this one joins it
    setImmediate(() => runGroup(db, g));
  });
}

function runGroup(db: Db, g: Group): void {
  g.scheduled = false;
  const jobs = g.jobs;
  g.jobs = [];
  const outcomes: { ok: boolean; value: unknown }[] = [];
  try {
    transaction(db, () => {
      for (const job of jobs) {
        try {
          outcomes.push({ ok: true, value: savepoint(db, job.fn) });
        } catch (err) {
          outcomes.push({ ok: false, value: err });
        }
      }
    });
  } catch (err) {
    // the transaction itself failed (BEGIN or COMMIT): nothing of the group was kept
    for (const job of jobs) job.reject(err);
    return;
  }
  jobs.forEach((job, i) => (outcomes[i].ok ? job.resolve(outcomes[i].value) : job.reject(outcomes[i].value)));
}

import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { publicDoc, updateDoc, type StoredDoc } from '../documents/store.js';
import { getUser, isAccountAdmin, type Actor } from '../users/service.js';
import { queues } from './kind.js';

/** The queues a user answers: Kazoo keeps them on the user, as `queues`. */
function queuesOf(user: StoredDoc): string[] {
  return Array.isArray(user.doc.queues) ? user.doc.queues.filter((q): q is string => typeof q === 'string') : [];
}

/**
 * The roster of a queue: the ids of the account's users who answer it, by id as Kazoo's
 * `queues/agents_listing` view keys them (404 for an unknown queue). One search of `doc_keys`,
 * where each user's queues are kept: it reads the agents, not the account's users.
 */
export function listRoster(core: Core, accountId: string, queueId: string): string[] {
  const queue = queues.get(core, accountId, queueId);
  const rows = stmt(core.db, `SELECT doc_id FROM doc_keys WHERE account_id = ? AND field = 'queues' AND value = ? ORDER BY doc_id`).all(accountId, queue.id) as {
    doc_id: string;
  }[];
  return rows.map((r) => r.doc_id);
}

/** Changing a roster changes users' documents: an admin of the account's work. */
export function checkRosterWrite(core: Core, actor: Actor): void {
  if (!isAccountAdmin(core, actor)) throw errors.forbidden("changing a queue's roster needs an admin of the account");
}

/**
 * Sets who answers a queue (`POST …/roster` with the user ids; `[]` or `DELETE` empties it): the
 * queue joins the `queues` of the users listed and leaves those of the others, each a
 * `doc_edited` user. An id that is not a user of the account is a 404 and changes nothing.
 * Answers the queue with its `agents`, as Kazoo's.
 */
export function setRoster(core: Core, accountId: string, queueId: string, userIds: unknown): Record<string, unknown> {
  if (!Array.isArray(userIds) || userIds.some((id) => typeof id !== 'string')) {
    throw errors.invalidField('data', 'type', 'Value did not match type(s): array of user ids', { target: 'array', value: userIds });
  }
  const wanted = new Set(userIds as string[]);
  return transaction(core.db, () => {
    const queue = queues.get(core, accountId, queueId);
    const users = [...wanted].map((id) => getUser(core, accountId, id));
    // only the users who join or leave are read and written: the agents are one search of the key
    const agents = new Set(listRoster(core, accountId, queue.id));
    const leaving = [...agents].filter((id) => !wanted.has(id)).map((id) => getUser(core, accountId, id));
    for (const user of [...users.filter((u) => !agents.has(u.id)), ...leaving]) {
      const current = queuesOf(user);
      const next = current.includes(queue.id) ? current.filter((q) => q !== queue.id) : [queue.id, ...current];
      updateDoc(core, user, { ...user.doc, queues: next });
    }
    return { ...publicDoc(queue), agents: listRoster(core, accountId, queue.id) };
  });
}

import type { Core } from '../../core-type.js';
import { listAttempts, type AttemptRow } from '../../delivery/attempts.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import type { TimeWindow } from '../../util/time.js';
import { queues } from './kind.js';
import { QUEUE_KIND } from './notify.js';

/** Every try of one queue's notifications (404 for an unknown queue), listed like webhook attempts. */
export function listQueueNotifications(
  core: Core,
  accountId: string,
  queueId: string,
  q: TimeWindow & PageQuery<CompoundKey> = {},
): Page<AttemptRow, CompoundKey> {
  const queue = queues.get(core, accountId, queueId);
  return listAttempts(core, { ...q, kind: QUEUE_KIND, accountId: queue.accountId, sourceId: queue.id });
}

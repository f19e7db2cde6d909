import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { newId } from '../../util/ids.js';
import { nowGregorian } from '../../util/time.js';
import { queues } from '../queues/kind.js';
import { notifyQueue, type CallState } from '../queues/notify.js';
import { findUser } from '../users/service.js';
import { recordCallStat } from '../acdc-call-stats/service.js';
import type { EmittedEvent } from './registry.js';

/** What the `queue_call` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateInput = compileValidator({
  type: 'object',
  required: ['queue_id', 'agent_id'],
  properties: {
    queue_id: { type: 'string', minLength: 1 },
    agent_id: { type: 'string', minLength: 1 },
    caller_id_number: { type: 'string', default: '+14155550100' },
    caller_id_name: { type: 'string', default: 'Caller' },
    member_call_id: { type: 'string', minLength: 1 },
    agent_call_id: { type: 'string', minLength: 1 },
    wait_time: { type: 'integer', minimum: 0, default: 15, description: 'seconds the caller waited before the agent picked up' },
    talk_time: { type: 'integer', minimum: 0, default: 60, description: 'seconds the caller talked to the agent' },
  },
});

/**
 * A caller waiting in a queue is answered by an agent, then hangs up: the queue's `pickup`
 * and `hangup` notifications, each with every field of the queue notification table, sent
 * through the durable outbox to the URLs the queue configures; the call's statistics are
 * archived (`acdc_call_stats` lists them).
 */
export function simulateQueueCall(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateInput(fields);
  const queue = queues.get(core, accountId, String(input.queue_id));
  const agent = findUser(core, accountId, String(input.agent_id));
  if (!agent) throw errors.badIdentifier(String(input.agent_id));
  const memberCallId = String(input.member_call_id ?? newId());
  const base = {
    account_id: accountId,
    agent_id: agent.id,
    agent_call_id: String(input.agent_call_id ?? newId()),
    agent_username: agent.doc.username,
    caller_id_name: input.caller_id_name,
    caller_id_number: input.caller_id_number,
    member_call_id: memberCallId,
    queue_id: queue.id,
  };
  const now = nowGregorian();
  const wait = Number(input.wait_time);
  const talk = Number(input.talk_time);
  recordCallStat(core, accountId, {
    callId: memberCallId,
    queueId: queue.id,
    agentId: agent.id,
    callerIdNumber: input.caller_id_number,
    callerIdName: input.caller_id_name,
    enteredTimestamp: now - wait - talk,
    handledTimestamp: now - talk,
    processedTimestamp: now,
    waitTime: wait,
    talkTime: talk,
  });
  const states: CallState[] = ['pickup', 'hangup'];
  return states.map((state) => {
    const payload = { ...base, call_state: state, now: nowGregorian() };
    const sent = notifyQueue(core, queue, state, payload);
    return { event: state, call_id: memberCallId, ...payload, ...(sent ? { notification: sent } : {}) };
  });
}

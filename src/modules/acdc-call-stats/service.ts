import type { Core } from '../../core-type.js';
import type { CompoundKey, Page } from '../../store/pages.js';
import { insertDoc, type StoredDoc } from '../documents/store.js';
import { modbId, modbPage, type ModbQuery } from '../documents/modb.js';

/** The stored kind of a queue call's statistics (Kazoo's `call_stat`). */
export const CALL_STAT_KIND = 'call_stat';

/** The columns of Kazoo's `acdc_call_stats` listing, in its order (for JSON and CSV alike). */
export const CALL_STAT_COLUMNS = [
  'id',
  'handled_timestamp',
  'caller_id_number',
  'caller_id_name',
  'entered_position',
  'status',
  'agent_id',
  'wait_time',
  'talk_time',
  'queue_id',
] as const;

/** What a queue call leaves in ACDC's statistics once it is over. */
export interface CallStat {
  callId: string;
  queueId: string;
  agentId: string;
  callerIdNumber: unknown;
  callerIdName: unknown;
  /** Gregorian seconds */
  enteredTimestamp: number;
  handledTimestamp: number;
  processedTimestamp: number;
  waitTime: number;
  talkTime: number;
}

/** Archives a queue call's statistics as ACDC's stats archive does (a `call_stat` document of the month). */
export function recordCallStat(core: Core, accountId: string, s: CallStat): StoredDoc {
  return insertDoc(
    core,
    CALL_STAT_KIND,
    accountId,
    {
      call_id: s.callId,
      queue_id: s.queueId,
      agent_id: s.agentId,
      entered_timestamp: s.enteredTimestamp,
      handled_timestamp: s.handledTimestamp,
      processed_timestamp: s.processedTimestamp,
      hung_up_by: 'caller',
      entered_position: 1,
      exited_position: 1,
      status: 'processed',
      caller_id_number: s.callerIdNumber,
      caller_id_name: s.callerIdName,
      wait_time: s.waitTime,
      talk_time: s.talkTime,
    },
    {},
    modbId(),
  );
}

/** A statistic as Kazoo's listing answers it: its columns, an absent value as `""`. */
export function callStatRow(d: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of CALL_STAT_COLUMNS) row[c] = c === 'id' ? d.id : (d.doc[c] ?? '');
  return row;
}

/** One page of an account's call statistics archived in the window. */
export function callStatsPage(core: Core, accountId: string, q: ModbQuery): Page<StoredDoc, CompoundKey> {
  return modbPage(core, CALL_STAT_KIND, accountId, q);
}

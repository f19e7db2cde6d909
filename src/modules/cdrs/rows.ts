import { GREGORIAN_OFFSET_SECONDS, gregorianToUnixMs, rfc1036 } from '../../util/time.js';

// A CDR as Kazoo's cdrs listing answers it (kzd_cdrs' columns, for JSON and CSV alike): the
// leg's fields as strings where Kazoo writes them as strings, its start told in several forms.

/** The columns of a CDR listing row, in Kazoo's order; a reseller's token sees two more. */
export const CDR_COLUMNS = [
  'id',
  'call_id',
  'caller_id_number',
  'caller_id_name',
  'callee_id_number',
  'callee_id_name',
  'duration_seconds',
  'billing_seconds',
  'timestamp',
  'hangup_cause',
  'other_leg_call_id',
  'owner_id',
  'to',
  'from',
  'direction',
  'request',
  'authorizing_id',
  'cost',
  'dialed_number',
  'calling_from',
  'datetime',
  'unix_timestamp',
  'unix_timestamp_micro',
  'rfc_1036',
  'iso_8601',
  'iso_8601_combined',
  'call_type',
  'rate',
  'rate_name',
  'bridge_id',
  'recording_url',
  'media_recordings',
  'media_server',
  'call_priority',
  'interaction_id',
] as const;

/** The columns only a reseller's token sees. */
export const RESELLER_COLUMNS = ['reseller_cost', 'reseller_call_type'] as const;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number | '' => (Number.isInteger(v) ? (v as number) : '');
/** The user part of a SIP address (`+1415…@realm` → `+1415…`). */
const userOf = (v: unknown): string => str(v).split('@')[0];

/** A float as Erlang writes it: whole numbers keep a `.0`. */
function floatText(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

/** The calendar fields of Gregorian seconds (UTC). */
function dateOf(gregorian: number): Date {
  return new Date(gregorianToUnixMs(gregorian));
}

function ymd(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function hms(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/**
 * A CDR's listing row. `utcOffset` (seconds) moves the `datetime` column only, as Kazoo's
 * `utc_offset` does; `reseller` adds the reseller's columns.
 */
export function cdrRow(id: string, doc: Record<string, unknown>, opts: { reseller?: boolean; utcOffset?: number } = {}): Record<string, unknown> {
  const ccvs = (doc.custom_channel_vars ?? {}) as Record<string, unknown>;
  const duration = Number.isInteger(doc.duration_seconds) ? (doc.duration_seconds as number) : 0;
  const start = (Number.isInteger(doc.timestamp) ? (doc.timestamp as number) : 0) - duration;
  const startDate = dateOf(start);
  const unixStart = start - GREGORIAN_OFFSET_SECONDS;
  const micro = Number.isInteger(doc.channel_created_time) ? (doc.channel_created_time as number) : unixStart * 1_000_000;
  const inbound = doc.call_direction === 'inbound';
  const authorizing = str(ccvs.authorizing_id);
  const recordings = ccvs.media_recordings;
  const shown = dateOf(start + (opts.utcOffset ?? 0));
  const row: Record<string, unknown> = {
    id,
    call_id: str(doc.call_id),
    caller_id_number: str(doc.caller_id_number),
    caller_id_name: str(doc.caller_id_name),
    callee_id_number: str(doc.callee_id_number),
    callee_id_name: str(doc.callee_id_name),
    duration_seconds: int(doc.duration_seconds),
    billing_seconds: int(doc.billing_seconds),
    timestamp: String(start),
    hangup_cause: str(doc.hangup_cause),
    other_leg_call_id: str(doc.other_leg_call_id),
    owner_id: str(ccvs.owner_id),
    to: str(doc.to),
    from: str(doc.from),
    direction: str(doc.call_direction),
    request: str(doc.request),
    // Kazoo leaves it out when the account itself authorized the leg
    authorizing_id: authorizing === ccvs.account_id ? '' : authorizing,
    cost: '0',
    dialed_number: inbound ? userOf(doc.request) : userOf(doc.to),
    calling_from: inbound ? str(doc.caller_id_number) : userOf(doc.from_uri),
    datetime: `${ymd(shown)}_${hms(shown)}`,
    unix_timestamp: String(unixStart),
    unix_timestamp_micro: floatText(Math.floor(micro / 1_000_000) + (micro % 1_000_000) / 1_000_000),
    rfc_1036: rfc1036(start),
    iso_8601: ymd(startDate),
    iso_8601_combined: `${ymd(startDate)}T${hms(startDate)}Z`,
    call_type: str(ccvs.account_billing),
    rate: '0.0',
    rate_name: str(ccvs.rate_name),
    bridge_id: str(ccvs.bridge_id),
    recording_url: str(doc.recording_url),
    media_recordings: Array.isArray(recordings) ? recordings : recordings === undefined ? [] : [recordings],
    media_server: str(doc.media_server),
    call_priority: str(ccvs.call_priority),
    interaction_id: str(doc.interaction_id),
  };
  if (opts.reseller) {
    row.reseller_cost = '0';
    row.reseller_call_type = str(ccvs.reseller_billing);
  }
  return row;
}

import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { newId } from '../../util/ids.js';
import { unixMsToGregorian } from '../../util/time.js';
import { deleteDoc, getDoc, insertDoc, type StoredDoc } from '../documents/store.js';
import type { Call, Leg } from '../channels/calls.js';
import { modbId, modbPage, type ModbQuery } from '../documents/modb.js';
import type { CompoundKey, Page } from '../../store/pages.js';
import type { FilePieces } from '../../util/file-pieces.js';

/** The stored kind of a call recording (Kazoo's `call_recording`). */
export const RECORDING_KIND = 'call_recording';

/** What a simulated recording holds: silence, as 8 kHz 8-bit mono PCM (a WAV file). */
export const RECORDING_TYPE = 'audio/x-wav';
const SAMPLE_RATE = 8000;
/** Kazoo stops a recording at its `time_limit`, 3600 s unless the callflow says otherwise. */
const TIME_LIMIT_MS = 3_600_000;

/**
 * Records the answered part of a call's leg as media_mgr stores a recording: a `call_recording`
 * document (Kazoo's fields) named after it, tied to the leg's CDR. Answers its name, which the
 * CDR lists in `media_recordings`.
 */
export function recordCall(core: Core, call: Call, leg: Leg, endMs: number, cdrId: string): string {
  const id = modbId(endMs);
  const name = `${id}.wav`;
  const startMs = leg.answeredMs ?? leg.startedMs;
  const durationMs = Math.min(TIME_LIMIT_MS, Math.max(0, endMs - startMs));
  const b = call.base;
  const doc: Record<string, unknown> = {
    name,
    description: `recording ${name}`,
    content_type: RECORDING_TYPE,
    media_type: 'wav',
    media_source: 'recorded',
    source_type: 'media_recording',
    from: b.from,
    to: `${leg.destination}@${call.realm}`,
    request: `${leg.destination}@${call.realm}`,
    direction: leg.direction,
    start: unixMsToGregorian(startMs),
    duration: Math.floor(durationMs / 1000),
    duration_ms: durationMs,
    caller_id_number: b.caller_id_number,
    caller_id_name: b.caller_id_name,
    callee_id_number: leg.destination,
    callee_id_name: b.callee_id_name,
    call_id: leg.callId,
    cdr_id: cdrId,
    interaction_id: call.interactionId,
    origin: `${leg.direction} call`,
    custom_channel_vars: b.custom_channel_vars ?? {},
  };
  if (b.authorizing_id !== undefined) doc.endpoint_id = b.authorizing_id;
  if (b.owner_id !== undefined) doc.owner_id = b.owner_id;
  insertDoc(core, RECORDING_KIND, call.accountId, doc, {}, id);
  return name;
}

/** One page of an account's recordings made in the window (newest first unless told otherwise). */
export function recordingsPage(core: Core, accountId: string, q: ModbQuery): Page<StoredDoc, CompoundKey> {
  return modbPage(core, RECORDING_KIND, accountId, q);
}

/** A recording of the account (its id is `YYYYMM-…`, as Kazoo's are), or the 404. */
export function getRecording(core: Core, accountId: string, id: string): StoredDoc {
  if (!/^\d{6}-/.test(id)) throw errors.badIdentifier(id);
  return getDoc(core, RECORDING_KIND, accountId, id);
}

/** Deletes a recording; answers it. */
export function deleteRecording(core: Core, accountId: string, id: string): StoredDoc {
  const d = getRecording(core, accountId, id);
  deleteDoc(core, d);
  return d;
}

/** Silence, as 8-bit PCM writes it: the pieces of a recording's sound are slices of this one buffer. */
const SILENCE = Buffer.alloc(64 * 1024, 0x80);

/**
 * The recording's sound: silence as long as the recording, in a WAV file, made as it is written
 * (an hour is 28.8 MB: a few clients asking for long recordings at once would otherwise hold that
 * much each).
 */
export function recordingAudio(d: StoredDoc): FilePieces {
  const samples = Math.round((Number(d.doc.duration_ms) || 0) * (SAMPLE_RATE / 1000));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE, 28); // bytes a second
  header.writeUInt16LE(1, 32); // bytes a sample frame
  header.writeUInt16LE(8, 34); // bits a sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples, 40);
  return { length: header.length + samples, pieces: wavPieces(header, samples) };
}

function* wavPieces(header: Buffer, samples: number): Generator<Buffer> {
  yield header;
  for (let left = samples; left > 0; left -= SILENCE.length) yield left >= SILENCE.length ? SILENCE : SILENCE.subarray(0, left);
}

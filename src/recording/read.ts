import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../util/json.js';
import { isExchange, isHeader, isSecretLine, RECORDING_VERSION, type RecordedExchange, type RecordingHeader, type SecretLine } from './format.js';

/** A file that is not a recording tel reads (one sentence, with the line). */
export class RecordingInvalid extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const optional = (v: unknown, type: string) => v === undefined || typeof v === type;

/** A message of an exchange line has what a replay reads, of the types it reads. */
function wellFormedMessage(m: unknown): boolean {
  if (!isObject(m) || !isObject(m.headers)) return false;
  for (const v of Object.values(m.headers)) if (typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) return false;
  return optional(m.body_text, 'string') && optional(m.body_base64, 'string') && optional(m.body_omitted, 'string') && typeof m.body_bytes === 'number';
}

function wellFormed(e: RecordedExchange): boolean {
  const q = e.request as unknown as Record<string, unknown>;
  const a = e.response as unknown as Record<string, unknown> | undefined;
  return (
    Number.isInteger(e.seq) &&
    wellFormedMessage(q) &&
    typeof q.method === 'string' &&
    typeof q.path === 'string' &&
    typeof q.query === 'string' &&
    (a === undefined || (wellFormedMessage(a) && typeof a.status === 'number'))
  );
}

/** The lines of a recording after its header: placeholders at once, exchanges in the order their requests started. */
export type RecordingItem = { secret: SecretLine } | { exchange: RecordedExchange };

/**
 * Reads a recording as it streams from the file: its header (checked), then each placeholder line
 * as it comes and the exchanges in `seq` order. Lines come in the order answers ended, never far
 * from `seq` order (as far as requests were under way at once), so only those waiting for an
 * earlier one are held.
 */
export async function openRecording(file: string): Promise<{ header: RecordingHeader; items: AsyncGenerator<RecordingItem> }> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })[Symbol.asyncIterator]();
  let n = 0;
  const next = async (): Promise<unknown> => {
    for (;;) {
      const { value, done } = await lines.next();
      if (done) return undefined;
      n++;
      if (value.trim() === '') continue;
      // an exchange's body sits three levels down
      if (jsonTooDeep(value, MAX_JSON_DEPTH + 3)) throw new RecordingInvalid(`line ${n} of ${file} nests objects and arrays too deep.`);
      try {
        return JSON.parse(value);
      } catch {
        throw new RecordingInvalid(`line ${n} of ${file} is not JSON.`);
      }
    }
  };
  const first = (await next()) as RecordingHeader | undefined;
  if (!first || typeof first !== 'object' || !isHeader(first)) throw new RecordingInvalid(`${file} is not a tel recording (its first line is not a tel record header).`);
  if (first.tel_recording !== RECORDING_VERSION) throw new RecordingInvalid(`${file} is a recording of version ${first.tel_recording}; this tel reads version ${RECORDING_VERSION}.`);
  async function* items(): AsyncGenerator<RecordingItem> {
    const waiting = new Map<number, RecordedExchange>();
    let expected = 1;
    for (let line = await next(); line !== undefined; line = await next()) {
      if (line === null || typeof line !== 'object') throw new RecordingInvalid(`line ${n} of ${file} is not an object.`);
      const l = line as SecretLine | RecordedExchange;
      if (isSecretLine(l) && typeof l.secret === 'string') yield { secret: l };
      else if (isExchange(l) && wellFormed(l)) {
        waiting.set(l.seq, l);
        for (let e = waiting.get(expected); e; e = waiting.get(expected)) {
          waiting.delete(expected++);
          yield { exchange: e };
        }
      } else throw new RecordingInvalid(`line ${n} of ${file} is neither an exchange nor a placeholder as tel record writes them.`);
    }
    // a recording cut short: what is left, in order
    for (const seq of [...waiting.keys()].sort((a, b) => a - b)) yield { exchange: waiting.get(seq)! };
  }
  return { header: first, items: items() };
}

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dataJson, envelopeHead, envelopeTail, NODE_NAME, successAnswer, successEnvelope, WITHOUT_REVISION, type EnvelopeExtras } from './envelope.js';
import { VERSION } from '../version.js';

/** The envelope as an object, serialised whole: what the text must equal byte for byte. */
function reference(data: unknown, requestId: string, token: string | undefined, extras: EnvelopeExtras, authenticated: boolean, timestamp: string): string {
  const { revision, ...rest } = extras;
  const env: Record<string, unknown> = {};
  if (token) env.auth_token = token;
  if (data !== undefined) env.data = data;
  Object.assign(env, rest);
  env.node = NODE_NAME;
  env.request_id = requestId;
  if (revision !== null) env.revision = revision ?? createHash('md5').update(JSON.stringify(data ?? null)).digest('hex');
  env.status = 'success';
  env.timestamp = timestamp;
  if (authenticated) env.version = VERSION;
  return JSON.stringify(env);
}

describe('the success envelope', () => {
  const cases: [string, unknown, string | undefined, EnvelopeExtras, boolean][] = [
    ['a document with its revision', { id: 'a', name: 'Acme "Lab"', nested: { list: [1, null, 'é'] } }, 'tok', { revision: '3-abc' }, true],
    ['a listing with paging keys', [{ id: 1 }, { id: 2 }], 'tok', { page_size: 2, start_key: 'x', next_start_key: undefined }, true],
    ['no data, no token, anonymous', undefined, undefined, {}, false],
    ['null data', null, 'tok', {}, true],
    ['frozen data (its text is kept)', Object.freeze({ id: 'x', list: [1, 2] }), 'tok', { revision: '1-a' }, true],
    ['a string and unicode', 'hooks updated \u2028', 'tok', {}, true],
    ['extras naming envelope keys', { a: 1 }, 'tok', { status: 'x', node: 'y', custom: [1] }, true],
    ['an answer without a revision (a write that saved no document)', { events: [{ event: 'channel_create' }] }, 'tok', WITHOUT_REVISION, true],
    ['a listing without a revision', [{ id: 1 }], 'tok', { page_size: 1, revision: null }, true],
  ];
  it.each(cases)('%s is the JSON of the envelope object, byte for byte', (_name, data, token, extras, authenticated) => {
    const text = successEnvelope(dataJson(data), 'req-1', token, extras, authenticated);
    const timestamp = (JSON.parse(text) as { timestamp: string }).timestamp;
    expect(text).toBe(reference(data, 'req-1', token, extras, authenticated, timestamp));
  });

  it('answers the same text with its length in bytes, request after request, as the document, token or revision change', () => {
    const accented = dataJson(Object.freeze({ id: 'a', name: 'Café \u2028 Lab' }));
    const plain = dataJson(Object.freeze({ id: 'b', name: 'Lab' }));
    const calls: [string | undefined, string, string | undefined, EnvelopeExtras, boolean][] = [
      [accented, 'r1', 'tok', { revision: '1-a' }, true],
      [accented, 'r2', 'tok', { revision: '1-a' }, true],
      [accented, 'r3', 'tok', { revision: '2-b' }, true],
      [plain, 'r4', 'tok', { revision: '2-b' }, true],
      [plain, 'r5', 'other-token', { revision: '2-b' }, true],
      [plain, 'r6', undefined, {}, false],
      [undefined, 'r7', 'tok', {}, true],
      [plain, 'r8', 'tok', { page_size: 1 }, true],
      [plain, 'r9', 'tok', { revision: '2-b' }, true],
      [plain, 'r10', 'tok', WITHOUT_REVISION, true],
      [plain, 'r11', 'tok', {}, true],
    ];
    for (const [data, id, token, extras, authenticated] of calls) {
      const answer = successAnswer(data, id, token, extras, authenticated);
      const timestamp = (JSON.parse(answer.text) as { timestamp: string }).timestamp;
      expect(answer.text).toBe(reference(data === undefined ? undefined : JSON.parse(data), id, token, extras, authenticated, timestamp));
      expect(answer.bytes).toBe(Buffer.byteLength(answer.text));
    }
  });

  it('a request id that is not its own JSON once quoted is written escaped', () => {
    const text = successEnvelope(dataJson({ a: 1 }), 'a"b\\c', 'tok', { revision: '1-a' }, true);
    expect(JSON.parse(text).request_id).toBe('a"b\\c');
  });

  it.each([
    ['a listing streamed', 'tok', true],
    ['anonymous, no token', undefined, false],
  ] as const)('%s: head, the data as written, and the tail are the envelope of the whole data', (_name, token, authenticated) => {
    const data = JSON.stringify([{ id: 1, name: 'a "b"' }, { id: 2 }]);
    const extras = { page_size: 2 };
    const whole = successEnvelope(data, 'req-1', token, extras, authenticated);
    const md5 = createHash('md5').update(data).digest('hex');
    const streamed = envelopeHead(token) + data + envelopeTail(md5, 'req-1', extras, authenticated);
    const sameSecond = (text: string) => text.replace(/"timestamp":"[^"]+"/, '"timestamp":"T"');
    expect(sameSecond(streamed)).toBe(sameSecond(whole));
  });
});

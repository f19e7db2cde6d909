import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/server.js';
import { openRecording, RecordingInvalid, type RecordingItem } from './read.js';

const tmp = tempDir('tel-recording-');
afterAll(() => tmp.cleanup());

const HEADER = JSON.stringify({ tel_recording: 1, started: '2026-01-01T00:00:00Z', upstream: 'http://kazoo/', salt: 'AAAA', placeholders: '' });
const exchange = (seq: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ seq, at_ms: seq, request: { method: 'GET', path: `/v2/${seq}`, query: '', headers: {}, body_bytes: 0 }, response: { status: 200, headers: {}, body_bytes: 0 }, ...extra });

let n = 0;
function file(lines: string[]): string {
  const f = join(tmp.dir, `r${++n}.jsonl`);
  writeFileSync(f, `${lines.join('\n')}\n`);
  return f;
}

async function read(f: string): Promise<RecordingItem[]> {
  const { items } = await openRecording(f);
  const out: RecordingItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('reading a recording', () => {
  it('gives placeholders as they come and exchanges in the order their requests started', async () => {
    const items = await read(file([HEADER, exchange(2), JSON.stringify({ secret: 'redacted:token:0123456789ab', kind: 'token' }), exchange(3), exchange(1), '', exchange(5)]));
    expect(items.map((i) => ('secret' in i ? i.secret.secret : i.exchange.seq))).toEqual(['redacted:token:0123456789ab', 1, 2, 3, 5]);
  });

  it('refuses, naming the line, what tel record did not write', async () => {
    await expect(openRecording(file(['{"hello": 1}']))).rejects.toThrow(/is not a tel recording/);
    await expect(openRecording(file([HEADER.replace('"tel_recording":1', '"tel_recording":2')]))).rejects.toThrow(/is a recording of version 2; this tel reads version 1\.$/);
    const cases: [string, RegExp][] = [
      ['not json', /line 2 of .* is not JSON\.$/],
      [exchange(1, { request: { method: 'GET', path: '/', query: '', headers: { host: 7 }, body_bytes: 0 } }), /line 2 of .* is neither an exchange nor a placeholder/],
      [exchange(1, { response: { status: '200', headers: {}, body_bytes: 0 } }), /line 2 .* neither an exchange nor a placeholder/],
      [`{"seq":1,"request":${'['.repeat(100)}${']'.repeat(100)}}`, /line 2 of .* nests objects and arrays too deep\.$/],
    ];
    for (const [line, error] of cases) {
      const err = await read(file([HEADER, line])).catch((e: unknown) => e);
      expect(err, line).toBeInstanceOf(RecordingInvalid);
      expect((err as Error).message).toMatch(error);
    }
  });
});

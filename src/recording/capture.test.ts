import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { recordedAnswer } from './capture.js';
import { MAX_RECORDED_BODY_BYTES } from './format.js';

describe('an answer as a recording holds it', () => {
  it('decodes a compressed JSON body, and keeps as bytes one that would inflate past what a recording keeps', () => {
    const small = gzipSync(JSON.stringify({ data: { id: 'a' } }));
    expect(recordedAnswer(200, { 'content-encoding': 'gzip' }, small)).toMatchObject({ body: { data: { id: 'a' } }, body_bytes: small.length });

    // 33 KB of gzip that would be 33 MiB of JSON
    const bomb = gzipSync(`{"data":"${'a'.repeat(MAX_RECORDED_BODY_BYTES + 1024 * 1024)}"}`);
    const held = recordedAnswer(200, { 'content-encoding': 'gzip' }, bomb);
    expect(held.body).toBeUndefined();
    expect(held).toMatchObject({ body_base64: bomb.toString('base64'), body_bytes: bomb.length });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { recordingAudio } from './service.js';
import type { StoredDoc } from '../documents/store.js';

describe('recordings of simulated calls that record', () => {
  let srv: TestServer;
  let account: string;
  let token: string;
  const get = (path: string) => srv.request('GET', `/v2/accounts/${account}${path}`, { token });
  const call = async (data: Record<string, unknown>) =>
    (await srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data: { kind: 'call', record: true, ...data } })).body.data.events[0].call_id as string;

  beforeAll(async () => {
    srv = await startTestServer();
    const sub = await createSubAccount(srv, srv.master.account_id, 'Recorded');
    account = sub.id;
    token = await srv.apiLogin(sub.apiKey);
  });
  afterAll(() => srv.close());

  it('an answered call leaves a recording of its answered part, named in its CDR; its sound is a WAV of that length', async () => {
    const callId = await call({ duration_seconds: 12, ringing_seconds: 2 });
    await call({ answer: false });
    const cdr = (await get('/cdrs')).body.data.find((r: any) => r.call_id === callId);
    const list = await get('/recordings');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const rec = list.body.data[0];
    expect(rec).toMatchObject({ call_id: callId, cdr_id: cdr.id, interaction_id: cdr.interaction_id, duration: 10, duration_ms: 10_000, media_source: 'recorded', _read_only: { content_types: ['audio/x-wav'] } });
    expect(cdr.media_recordings).toEqual([rec.name]);
    const one = await get(`/recordings/${rec.id}`);
    expect(one.body.data).toMatchObject({ id: rec.id, name: rec.name, content_type: 'audio/x-wav' });
    const audio = await fetch(`${srv.url}/v2/accounts/${account}/recordings/${rec.id}`, { headers: { 'X-Auth-Token': token, Accept: 'audio/x-wav' } });
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-disposition')).toBe(`attachment; filename=${rec.name}`);
    const wav = Buffer.from(await audio.arrayBuffer());
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect(wav.length).toBe(44 + 8000 * 10);
  });

  it("an hour's sound is made as it is sent, in pieces of 64 KiB at most, never held whole; HEAD tells its length only", async () => {
    const hour = recordingAudio({ doc: { duration_ms: 3_600_000 } } as unknown as StoredDoc);
    expect(hour.length).toBe(44 + 8000 * 3600);
    let total = 0;
    let largest = 0;
    for (const piece of hour.pieces) {
      total += piece.length;
      largest = Math.max(largest, piece.length);
    }
    expect(total).toBe(hour.length);
    expect(largest).toBeLessThanOrEqual(64 * 1024);

    const callId = await call({ duration_seconds: 100, ringing_seconds: 0 });
    const rec = (await get('/recordings')).body.data.find((r: any) => r.call_id === callId);
    const url = `${srv.url}/v2/accounts/${account}/recordings/${rec.id}`;
    const headers = { 'X-Auth-Token': token, Accept: 'audio/x-wav' };
    const wav = Buffer.from(await (await fetch(url, { headers })).arrayBuffer());
    expect(wav.length).toBe(44 + 8000 * 100);
    expect(wav.readUInt32LE(40)).toBe(8000 * 100);
    expect(wav.subarray(44).every((b) => b === 0x80)).toBe(true);
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(44 + 8000 * 100));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('a recording is deleted for good; ids Kazoo would not find are 404s; the window bounds the listing', async () => {
    const [rec] = (await get('/recordings')).body.data;
    const gone = await srv.request('DELETE', `/v2/accounts/${account}/recordings/${rec.id}`, { token });
    expect(gone.body.data).toMatchObject({ id: rec.id, _read_only: { deleted: true } });
    expect((await get(`/recordings/${rec.id}`)).status).toBe(404);
    expect((await get('/recordings/not-a-recording')).status).toBe(404);
    await call({});
    expect((await get('/recordings?created_from=63000000000&created_to=63000000100')).body.data).toEqual([]);
    expect((await get('/recordings?created_from=63000000000')).status).toBe(400);
  });
});

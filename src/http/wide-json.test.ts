import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { MAX_JSON_MEMBERS, MAX_JSON_STRING_BYTES, jsonStringTooLong, jsonTooManyMembers } from '../util/json.js';

const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
const items = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;

describe('JSON wider or with longer strings than the limits', () => {
  it('counts keys and items at every level, and neither commas inside strings nor empty objects and arrays', () => {
    const wide = (text: string) => Buffer.from(text);
    // the envelope's `data` is one member, its document's keys the others
    expect(jsonTooManyMembers(wide(`{"data":${keys(MAX_JSON_MEMBERS - 1)}}`))).toBe(false);
    expect(jsonTooManyMembers(wide(`{"data":${keys(MAX_JSON_MEMBERS)}}`))).toBe(true);
    expect(jsonTooManyMembers(wide(`{"data":{"a":${items(MAX_JSON_MEMBERS - 2)}}}`))).toBe(false);
    expect(jsonTooManyMembers(wide(`{"data":{"a":${items(MAX_JSON_MEMBERS - 1)}}}`))).toBe(true);
    // nested, counted across levels: a and d, the array's three items, b and c
    expect(jsonTooManyMembers(wide('{"a":[1,{"b":2,"c":[]},{}],"d":"x"}'), 7)).toBe(false);
    expect(jsonTooManyMembers(wide('{"a":[1,{"b":2,"c":[]},{}],"d":"x"}'), 6)).toBe(true);
    // white space anywhere, escaped quotes in strings
    expect(jsonTooManyMembers(wide(' { "a" : [ 1 , 2 ] ,\n"b\\",":"," } '), 4)).toBe(false);
    expect(jsonTooManyMembers(wide(' { "a" : [ 1 , 2 ] ,\n"b\\",":"," } '), 3)).toBe(true);
    const commas = `{"data":{"csv":"${','.repeat(3 * MAX_JSON_MEMBERS)}","empty":[${'[],'.repeat(10)}[]]}}`;
    expect(jsonTooManyMembers(wide(commas))).toBe(false);
  });

  it("measures each string's JSON text, escapes as written, up to its closing quote", () => {
    const max = 10;
    // white space makes the text longer than a string may be (a shorter one is not searched)
    const text = (s: string) => Buffer.from(`{${' '.repeat(2 * max)}"s":${s}}`);
    expect(jsonStringTooLong(text(`"${'a'.repeat(max)}"`), max)).toBe(false);
    expect(jsonStringTooLong(text(`"${'a'.repeat(max + 1)}"`), max)).toBe(true);
    // an escaped quote does not end a string; an escaped backslash before a quote does
    expect(jsonStringTooLong(text(`"${'\\"'.repeat(4)}"`), max)).toBe(false);
    expect(jsonStringTooLong(text(`"${'\\"'.repeat(6)}"`), max)).toBe(true);
    expect(jsonStringTooLong(text(`["${'a\\\\'.repeat(2)}","${'b'.repeat(max)}"]`), max)).toBe(false);
    // a key is a string too
    expect(jsonStringTooLong(Buffer.from(`{"${'k'.repeat(2 * max)}":1}`), max)).toBe(true);
  });

  describe('over HTTP', () => {
    let srv: TestServer;
    beforeAll(async () => {
      srv = await startTestServer();
    });
    afterAll(async () => srv?.close());

    const devices = () => `/v2/accounts/${srv.master.account_id}/devices`;
    const put = (body: string) => srv.request('PUT', devices(), { token: srv.adminToken, body });

    it('answers 400 too_many_members before the token is checked, and stores nothing', async () => {
      const refused = await put(`{"data":{"name":"Wide",${keys(100_000).slice(1)}}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: '400', message: 'invalid json', status: 'error' });
      expect(refused.body.data.json.too_many_members).toEqual({
        message: `JSON must not hold more than ${MAX_JSON_MEMBERS} members (an object's keys and an array's items, in all)`,
        target: MAX_JSON_MEMBERS,
      });
      // a body check, as the nesting's: a request without a token meets it first
      const anonymous = await srv.request('PUT', devices(), { body: `{"data":${items(MAX_JSON_MEMBERS)}}` });
      expect(anonymous.status).toBe(400);
      expect(anonymous.body.data.json.too_many_members.target).toBe(MAX_JSON_MEMBERS);
      const list = await srv.request('GET', devices(), { token: srv.adminToken });
      expect(list.body.data).toEqual([]);
    });

    it('answers 400 too_long_string for a string past the limit, and takes one at the limit', async () => {
      const long = `{"data":{"name":"Long","notes":"${'n'.repeat(MAX_JSON_STRING_BYTES + 1)}"}}`;
      const refused = await put(long);
      expect(refused.status).toBe(400);
      expect(refused.body.data.json.too_long_string).toEqual({ message: `JSON strings must not be longer than ${MAX_JSON_STRING_BYTES} bytes`, target: MAX_JSON_STRING_BYTES });
      // (without a token a body that large is not read at all: 413)
      expect((await srv.request('PUT', devices(), { body: long })).status).toBe(413);
      const taken = await put(`{"data":{"name":"Long","notes":"${'n'.repeat(MAX_JSON_STRING_BYTES)}"}}`);
      expect(taken.status).toBe(201);
      expect(taken.body.data.notes).toHaveLength(MAX_JSON_STRING_BYTES);
    });

    it('takes a document as wide as the limit allows', async () => {
      const taken = await put(`{"data":{"name":"Wide",${keys(MAX_JSON_MEMBERS - 2).slice(1)}}`);
      expect(taken.status).toBe(201);
      expect(taken.body.data.k0).toBe(0);
      expect(taken.body.data[`k${MAX_JSON_MEMBERS - 3}`]).toBe(MAX_JSON_MEMBERS - 3);
    });

    it("takes a number job's list past the limit (the job's thread parses it)", async () => {
      const base = `/v2/accounts/${srv.master.account_id}/resources`;
      const resource = await srv.request('PUT', base, { token: srv.adminToken, data: { name: 'Wide carrier', gateways: [] } });
      const numbers = Array.from({ length: 2 * MAX_JSON_MEMBERS }, (_, i) => `+1628${String(4_000_000 + i)}`);
      const job = await srv.request('PUT', `${base}/jobs`, { token: srv.adminToken, data: { numbers, resource_id: resource.body.data.id } });
      expect(job.status).toBe(201);
      expect(job.body.data.numbers).toHaveLength(2 * MAX_JSON_MEMBERS);
    });
  });
});

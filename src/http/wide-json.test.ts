import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { MAX_JSON_MEMBERS, jsonTooManyMembers } from '../util/json.js';

const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
const items = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;

describe('JSON wider than the limit', () => {
  it('counts keys and items at every level, and neither commas inside strings nor empty objects and arrays', () => {
    const wide = (n: number) => Buffer.from(n);
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

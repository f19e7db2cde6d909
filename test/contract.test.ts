import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '../src/modules/index.js';
import { openApiDocument } from '../src/openapi/document.js';
import { contractViolation } from './helpers/contract.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// Every answer the HTTP tests receive through test/helpers/server.ts is checked against the OpenAPI
// document (a breach fails the test that received it). These tests show the check itself does catch
// what breaks the document, and that it reads the document the server serves.
describe('the contract: answers keep the OpenAPI document', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it('reads the document GET /v2/openapi.json serves', async () => {
    const served = await srv.request('GET', '/v2/openapi.json');
    expect(served.body).toEqual(JSON.parse(JSON.stringify(openApiDocument(MODULES))));
  });

  it('takes the answers the document describes', async () => {
    const users = `/v2/accounts/${srv.master.account_id}/users`;
    const list = await srv.request('GET', users, { token: srv.adminToken });
    expect(contractViolation('GET', users, list.status, 'application/json', list.body)).toBeUndefined();
    const made = await srv.request('PUT', users, { token: srv.adminToken, data: { first_name: 'Con', last_name: 'Tract' } });
    expect(made.status).toBe(201);
    const unknown = await srv.request('GET', '/v2/nowhere', { token: srv.adminToken });
    expect(unknown.status).toBe(404);
  });

  it('names an answer that breaks it: a field of the wrong type, a status it does not list, an error without its envelope', () => {
    const user = `/v2/accounts/${srv.master.account_id}/users/${'a'.repeat(32)}`;
    const envelope = { node: 'n', request_id: 'r', status: 'success', timestamp: '2026-01-01T00:00:00' };
    const good = { ...envelope, data: { id: 'a'.repeat(32), first_name: 'Ann', last_name: 'Lee', enabled: true } };
    expect(contractViolation('GET', user, 200, 'application/json', good)).toBeUndefined();
    expect(contractViolation('GET', user, 200, 'application/json', { ...good, data: { ...good.data, enabled: 'yes' } })).toMatch(/does not match the document at \/data\/enabled/);
    expect(contractViolation('GET', user, 200, 'application/json', { ...good, data: { first_name: 'Ann', last_name: 'Lee' } })).toMatch(/required property 'id'/);
    expect(contractViolation('GET', user, 418, 'application/json', good)).toMatch(/418 is not an answer the document lists/);
    expect(contractViolation('GET', user, 200, 'text/html', good)).toMatch(/text\/html, not application\/json/);
    expect(contractViolation('GET', '/v2/nowhere', 200, 'application/json', good)).toMatch(/no such operation/);
    expect(contractViolation('GET', '/v2/nowhere', 404, 'application/json', { ...envelope, status: 'error' })).toMatch(/required property 'data'/);
  });
});

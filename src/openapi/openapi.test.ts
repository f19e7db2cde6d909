import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRouter } from '../http/api-router.js';
import { MODULES } from '../modules/index.js';
import { webhookSchema } from '../modules/webhooks/schema.js';
import { runTel } from '../../test/helpers/cli.js';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { openApiDocument } from './document.js';

type Doc = { paths: Record<string, Record<string, any>>; components: any };
const doc = openApiDocument(MODULES) as Doc;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for a real validator', async () => {
    // the validator dereferences in place: give it a copy
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    // and the validator does refuse what is not OpenAPI: a parameter in no place it knows
    const broken = structuredClone(doc);
    broken.paths['/accounts/{account_id}'].get.parameters[0].in = 'nowhere';
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
  });

  it('has every route of the router, and nothing else', () => {
    const routes = apiRouter().routes().map((r) => `${r.method} /${r.path.replace(/:(\w+)/g, '{$1}')}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(new Set(routes).size).toBe(routes.length);
    expect(documented.sort()).toEqual([...routes].sort());
    expect(routes).toContain('GET /openapi.json');
  });

  it('shows bodies inside {data: …} with the schema the handler validates with, who may call, and the error answers', () => {
    const create = doc.paths['/accounts/{account_id}/webhooks'].put;
    expect(create.requestBody.content['application/json'].schema).toEqual({ type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/webhooks' } } });
    expect(create.parameters).toEqual([{ name: 'account_id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(Object.keys(create.responses)).toEqual(['201', '400', '401', '403', '404', '405', '412', '413', '415', '503', '507']);
    const patch = doc.paths['/accounts/{account_id}/webhooks/{webhook_id}'].patch;
    expect(patch.requestBody.content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/webhooks_patch' });
    expect(doc.components.schemas.webhooks_patch.required).toBeUndefined();
    expect(doc.components.schemas.webhooks_patch.properties).toEqual(doc.components.schemas.webhooks.properties);
    expect(Object.keys(patch.responses)).toContain('409');
    expect(doc.paths['/accounts/{account_id}/limits'].post.responses['402']).toEqual({ $ref: '#/components/responses/ChargesNotAccepted' });
    expect(doc.paths['/user_auth'].put.security).toEqual([]);
    expect(doc.paths['/resources'].get.description).toBe('Needs a super-duper admin token.');
    expect(doc.components.securitySchemes.authToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Auth-Token' });
    expect(doc.components.responses.Forbidden.content['application/json'].example.data).toMatchObject({ cause: 'access denied by token restrictions' });
    expect(Object.keys(doc.components.responses).sort()).toEqual(
      ['ChargesNotAccepted', 'Conflict', 'Failed', 'Forbidden', 'Invalid', 'MethodNotAllowed', 'NotFound', 'PreconditionFailed', 'StorageFull', 'TooLarge', 'TooManyRequests', 'Unauthorized', 'Unavailable', 'UnsupportedMediaType'],
    );
  });

  it("carries each kind's schema and those it refers to as components named as Kazoo's files, refs rewritten", () => {
    const { users, webhooks, caller_id, metaflow } = doc.components.schemas;
    expect(webhooks.properties).toEqual(JSON.parse(JSON.stringify(webhookSchema.properties)));
    expect(users.required).toEqual(['first_name', 'last_name']);
    expect(users.properties.caller_id).toEqual({ $ref: '#/components/schemas/caller_id' });
    expect(caller_id.properties.internal.properties.name).toEqual({ type: 'string', maxLength: 35 });
    // recursive schemas stay references
    expect(metaflow.properties.children.patternProperties['.+']).toEqual({ $ref: '#/components/schemas/metaflow' });
    for (const name of ['accounts', 'users', 'webhooks', 'limits', 'resources', 'queues', 'devices', 'callflows', 'vmboxes', 'faxbox', 'media', 'whitelabel', 'domains', 'domain_hosts', 'resource_templates', 'callflows.user', 'endpoint.media']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it("answers: a kind's document with its id, a listing's rows, the parameters a listing takes", () => {
    const one = doc.paths['/accounts/{account_id}/users/{user_id}'].get.responses['200'].content['application/json'].schema;
    expect(one.allOf[1].properties.data).toEqual({
      allOf: [{ $ref: '#/components/schemas/users' }, { type: 'object', required: ['id'], properties: { id: expect.objectContaining({ type: 'string' }) } }],
    });
    const list = doc.paths['/accounts/{account_id}/devices'].get;
    const rows = list.responses['200'].content['application/json'].schema.allOf[1].properties.data;
    expect(rows.type).toBe('array');
    expect(rows.items.properties.name).toEqual(doc.components.schemas.devices.properties.name);
    expect(list.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name)).toEqual([
      'page_size', 'start_key', 'paginate', 'filters', 'accept', 'ascending', 'descending',
    ]);
    // Kazoo's filters: a family of parameters, an object exploded into the query string
    expect(list.parameters.find((p: { name: string }) => p.name === 'filters')).toMatchObject({ style: 'form', explode: true, schema: { patternProperties: { '^filter_(not_)?.+$': { type: 'string' } } } });
    const attempts = doc.paths['/accounts/{account_id}/webhooks/attempts'].get.parameters.map((p: { name: string }) => p.name);
    expect(attempts).toEqual(['account_id', 'created_from', 'created_to', 'page_size', 'start_key', 'paginate', 'filters', 'accept']);
  });

  it('every route that reads a JSON body declares its schema (or takes a file); rotating an API key, promoting a reseller, logging in by address and syncing a device read none', () => {
    const missing = apiRouter()
      .routes()
      .filter((r) => (r.method === 'PUT' || r.method === 'POST' || r.method === 'PATCH') && !r.body && !r.upload)
      .map((r) => `${r.method} ${r.path}`);
    expect(missing.sort()).toEqual(['POST accounts/:account_id/devices/:device_id/sync', 'PUT accounts/:account_id/api_key', 'PUT accounts/:account_id/reseller', 'PUT ip_auth']);
  });
});

describe('the account operations Kazoo clients call', () => {
  it('are all in the document', () => {
    const wanted = [
      'GET /accounts/{account_id}/parents',
      'GET /accounts/{account_id}/siblings',
      'GET /accounts/{account_id}/tree',
      'POST /accounts/{account_id}/move',
      'PUT /accounts/{account_id}/reseller',
      'DELETE /accounts/{account_id}/reseller',
      'GET /about',
      'GET /accounts/{account_id}/configs/{category}',
      'PUT /accounts/{account_id}/configs/{category}',
      'POST /accounts/{account_id}/configs/{category}',
      'PATCH /accounts/{account_id}/configs/{category}',
      'DELETE /accounts/{account_id}/configs/{category}',
      'PATCH /system_configs/{category}',
      'GET /system_configs/{category}/{node}',
      'POST /system_configs/{category}/{node}',
      'PATCH /system_configs/{category}/{node}',
      'DELETE /system_configs/{category}/{node}',
      'GET /accounts/{account_id}/resource_templates',
      'PUT /accounts/{account_id}/resource_templates',
      'GET /accounts/{account_id}/resource_templates/{template_id}',
      'POST /accounts/{account_id}/resource_templates/{template_id}',
      'PATCH /accounts/{account_id}/resource_templates/{template_id}',
      'DELETE /accounts/{account_id}/resource_templates/{template_id}',
      'GET /accounts/{account_id}/users/{user_id}/vcard',
      'GET /accounts/{account_id}/users/{user_id}/photo',
      'POST /accounts/{account_id}/users/{user_id}/photo',
      'DELETE /accounts/{account_id}/users/{user_id}/photo',
      'GET /accounts/{account_id}/queues/{queue_id}/roster',
      'POST /accounts/{account_id}/queues/{queue_id}/roster',
      'DELETE /accounts/{account_id}/queues/{queue_id}/roster',
      'GET /accounts/{account_id}/apps_store/blacklist',
      'POST /accounts/{account_id}/apps_store/blacklist',
      'GET /accounts/{account_id}/apps_store/{app_id}/icon',
      'GET /accounts/{account_id}/apps_store/{app_id}/screenshot/{index}',
      'GET /accounts/{account_id}/whitelabel/domains',
      'POST /accounts/{account_id}/whitelabel/domains',
      'GET /accounts/{account_id}/whitelabel/welcome',
      'POST /accounts/{account_id}/whitelabel/welcome',
      'GET /accounts/{account_id}/whitelabel/{domain}',
      'GET /accounts/{account_id}/whitelabel/{domain}/logo',
      'GET /accounts/{account_id}/whitelabel/{domain}/icon',
      'GET /accounts/{account_id}/whitelabel/{domain}/welcome',
      'GET /user_auth/{auth_token}',
      'GET /accounts/{account_id}/ledgers',
      // what the SDKs call of devices, voicemail messages and registrations
      'GET /accounts/{account_id}/devices/status',
      'POST /accounts/{account_id}/devices/{device_id}/sync',
      'GET /accounts/{account_id}/vmboxes/messages',
      'GET /accounts/{account_id}/vmboxes/{vmbox_id}/messages',
      'PUT /accounts/{account_id}/vmboxes/{vmbox_id}/messages',
      'POST /accounts/{account_id}/vmboxes/{vmbox_id}/messages',
      'DELETE /accounts/{account_id}/vmboxes/{vmbox_id}/messages',
      'GET /accounts/{account_id}/vmboxes/{vmbox_id}/messages/{message_id}',
      'POST /accounts/{account_id}/vmboxes/{vmbox_id}/messages/{message_id}',
      'DELETE /accounts/{account_id}/vmboxes/{vmbox_id}/messages/{message_id}',
      'GET /accounts/{account_id}/registrations',
      'DELETE /accounts/{account_id}/registrations',
      'GET /accounts/{account_id}/registrations/count',
      'DELETE /accounts/{account_id}/registrations/{username}',
      'GET /registrations',
      'GET /registrations/count',
    ];
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    expect(wanted.filter((op) => !documented.has(op))).toEqual([]);
    expect(doc.paths['/accounts/{account_id}/reseller'].put.description).toBe('Needs a super-duper admin token.');
    expect(doc.paths['/accounts/{account_id}/apps_store/{app_id}/icon'].get.security).toEqual([]);
  });
});

describe('GET /v2/openapi.json and tel openapi', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it('serves the document without a token, the same as tel openapi prints', async () => {
    const r = await srv.request('GET', '/v2/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body.openapi).toBe('3.1.0');
    const cli = await runTel(['openapi']);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(r.body);
  });
});

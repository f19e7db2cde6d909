// A small client of tel's API, typed by types generated from its OpenAPI document
// (`openapi-typescript`) and calling it with `openapi-fetch`: it creates, lists, patches and
// deletes a webhook. test/client.test.ts type-checks it against a fresh generation of the types,
// then runs it against a real server.
import createClient from 'openapi-fetch';
import type { paths } from './tel-api.js';

/** What the round trip saw, for the test to check. */
export interface RoundTrip {
  created: { id: string; retries?: number; format?: string };
  listed: string[];
  patched: { enabled?: boolean; name: string };
  deleted: boolean;
}

/** Creates a webhook, finds it in the listing, turns it off, and deletes it. */
export async function webhookRoundTrip(baseUrl: string, token: string, accountId: string): Promise<RoundTrip> {
  const tel = createClient<paths>({ baseUrl, headers: { 'X-Auth-Token': token } });
  const account = { account_id: accountId };

  const created = await tel.PUT('/accounts/{account_id}/webhooks', {
    params: { path: account },
    body: { data: { name: 'Typed client', uri: 'https://example.com/typed', hook: 'channel_destroy', retries: 3 } },
  });
  if (!created.data?.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  const hook = created.data.data;

  const listed = await tel.GET('/accounts/{account_id}/webhooks', { params: { path: account, query: { page_size: 50 } } });
  if (!listed.data?.data) throw new Error(`list failed: ${JSON.stringify(listed.error)}`);

  const patched = await tel.PATCH('/accounts/{account_id}/webhooks/{webhook_id}', {
    params: { path: { ...account, webhook_id: hook.id } },
    body: { data: { enabled: false } },
  });
  if (!patched.data?.data) throw new Error(`patch failed: ${JSON.stringify(patched.error)}`);

  const deleted = await tel.DELETE('/accounts/{account_id}/webhooks/{webhook_id}', { params: { path: { ...account, webhook_id: hook.id } } });
  if (!deleted.data?.data) throw new Error(`delete failed: ${JSON.stringify(deleted.error)}`);

  return {
    created: { id: hook.id, retries: hook.retries, format: hook.format },
    listed: listed.data.data.map((row) => row.id),
    patched: { enabled: patched.data.data.enabled, name: patched.data.data.name },
    deleted: deleted.data.data._read_only.deleted,
  };
}

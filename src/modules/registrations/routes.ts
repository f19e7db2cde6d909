import type { RouteDef } from '../../http/router.js';
import { listingReply, opaqueKey, pagingQuery } from '../../http/paging.js';
import type { JsonSchema } from '../../schema/validate.js';
import { getDoc } from '../documents/store.js';
import { getAccount } from '../accounts/service.js';
import { flushAccount, flushUsername } from './service.js';
import { countRegistrations, registeredDevices, registrationsPage } from './store.js';

/** An account's registrations are listed by username; every account's by account, then username. */
const BY_USERNAME = opaqueKey('string');
const BY_ACCOUNT = opaqueKey('string', 'string');

/**
 * Kazoo's registrar answers every registration at once (cb_registrations pages nothing): so does
 * tel, a chunk at a time, unless the client asks for pages (`page_size`).
 */
function everyUnlessPaged(query: URLSearchParams): URLSearchParams {
  if (query.has('page_size') || query.has('paginate')) return query;
  const all = new URLSearchParams(query);
  all.set('paginate', 'false');
  return all;
}

/** A registration as `GET …/registrations` answers it (ecallmgr_registrar's fields, lower-cased). */
const REGISTRATION: JsonSchema = {
  type: 'object',
  required: ['username', 'realm', 'authorizing_id', 'contact', 'expires'],
  properties: {
    username: { type: 'string' },
    realm: { type: 'string' },
    authorizing_id: { type: 'string', description: 'the device registered' },
    authorizing_type: { const: 'device' },
    owner_id: { type: 'string' },
    contact: { type: 'string' },
    original_contact: { type: 'string' },
    previous_contact: { type: 'string' },
    contact_ip: { type: 'string' },
    contact_port: { type: 'string' },
    network_ip: { type: 'string' },
    network_port: { type: 'string' },
    proxy_ip: { type: 'string', description: 'the SIP proxy the REGISTER came through' },
    proxy_port: { type: 'string' },
    proxy_protocol: { type: 'string' },
    source_ip: { type: 'string' },
    source_port: { type: 'string' },
    expires: { type: 'integer', description: 'seconds the registration lasts without a refresh' },
    event_timestamp: { type: 'integer', description: 'Gregorian seconds' },
    initial_registration: { type: 'integer', description: 'Gregorian seconds' },
    last_registration: { type: 'integer', description: 'Gregorian seconds' },
    first_registration: { type: 'boolean' },
    user_agent: { type: 'string' },
    call_id: { type: 'string' },
    from_user: { type: 'string' },
    from_host: { type: 'string' },
    to_user: { type: 'string' },
    to_host: { type: 'string' },
    account_name: { type: 'string' },
    account_realm: { type: 'string' },
    presence_id: { type: 'string' },
    suppress_unregister_notify: { type: 'boolean' },
    register_overwrite_notify: { type: 'boolean' },
  },
};

const LIST = { type: 'array', items: REGISTRATION };
const COUNT = { type: 'object', required: ['count'], properties: { count: { type: 'integer', minimum: 0 } } };
const OK = { const: 'ok' };

/** `/v2/accounts/{id}/registrations…`, `/v2/registrations…` (super-duper admins) and what devices answer of them. */
export const registrationRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/registrations',
    query: pagingQuery(),
    response: LIST,
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return listingReply(everyUnlessPaged(ctx.query), (q) => registrationsPage(core, ctx.params.account_id, q), (r) => r.fields, BY_USERNAME);
    },
  },
  {
    method: 'DELETE',
    path: 'accounts/:account_id/registrations',
    response: OK,
    handler: (ctx, core) => {
      flushAccount(core, ctx.params.account_id);
      return { data: 'ok' };
    },
  },
  {
    method: 'GET',
    path: 'accounts/:account_id/registrations/count',
    response: COUNT,
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: { count: countRegistrations(core, ctx.params.account_id) } };
    },
  },
  {
    method: 'DELETE',
    path: 'accounts/:account_id/registrations/:username',
    response: OK,
    handler: (ctx, core) => {
      flushUsername(core, ctx.params.account_id, ctx.params.username);
      return { data: 'ok' };
    },
  },
  {
    method: 'GET',
    path: 'registrations',
    superduper: true,
    query: pagingQuery(),
    response: LIST,
    handler: (ctx, core) => listingReply(everyUnlessPaged(ctx.query), (q) => registrationsPage(core, undefined, q), (r) => r.fields, BY_ACCOUNT),
  },
  {
    method: 'GET',
    path: 'registrations/count',
    superduper: true,
    response: COUNT,
    handler: (_ctx, core) => ({ data: { count: countRegistrations(core, undefined) } }),
  },
  {
    // cb_devices load_device_status/1: each registered device, `[]` when none
    method: 'GET',
    path: 'accounts/:account_id/devices/status',
    response: { type: 'array', items: { type: 'object', required: ['device_id', 'registered'], properties: { device_id: { type: 'string' }, registered: { const: true } } } },
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: registeredDevices(core, ctx.params.account_id).map((id) => ({ device_id: id, registered: true })) };
    },
  },
  {
    // cb_devices post/3: a check-sync NOTIFY asks the phone to fetch its configuration again
    method: 'POST',
    path: 'accounts/:account_id/devices/:device_id/sync',
    response: { const: 'sync request sent' },
    errors: [202],
    handler: (ctx, core) => {
      getDoc(core, 'device', ctx.params.account_id, ctx.params.device_id);
      return { status: 202, data: 'sync request sent' };
    },
  },
];

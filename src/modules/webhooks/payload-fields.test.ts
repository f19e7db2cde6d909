import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSink, type Sink, type SinkRequest } from '../../../test/helpers/sink.js';
import { HOOK_IDS } from './hook-types.js';
import { SAMPLES } from './samples.js';

/**
 * The fields each hook type's payload carries, written from Kazoo's webhooks app
 * (`webhooks_channel_util.erl` and `modules/*.erl`, and the notification definitions of
 * `kapi_notifications.erl`), with their JSON types. `always`: in every payload of the type;
 * `when`: only where the event has it (Kazoo leaves a field out when it has no value). Every
 * payload also carries `cluster_id`, which Kazoo's webhooks add to whatever they fire.
 */
type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object';
interface Table {
  always: Record<string, JsonType>;
  when?: Record<string, JsonType>;
}

const CHANNEL_BASE: Record<string, JsonType> = {
  account_id: 'string',
  call_direction: 'string',
  call_forwarded: 'boolean',
  call_id: 'string',
  callee_id_name: 'string',
  callee_id_number: 'string',
  caller_id_name: 'string',
  caller_id_number: 'string',
  cluster_id: 'string',
  custom_application_vars: 'object',
  custom_channel_vars: 'object',
  emergency_resource_used: 'boolean',
  from: 'string',
  hook_event: 'string',
  inception: 'string',
  is_internal_leg: 'boolean',
  local_resource_used: 'boolean',
  request: 'string',
  reseller_id: 'string',
  timestamp: 'integer',
  to: 'string',
};
/** Present when the call has them: who authorized it, its owner, the account's carrier, the other leg. */
const CHANNEL_WHEN: Record<string, JsonType> = {
  authorizing_id: 'string',
  authorizing_type: 'string',
  owner_id: 'string',
  local_resource_id: 'string',
  other_leg_call_id: 'string',
};
const MESSAGE: Table = {
  always: { id: 'string', account_id: 'string', type: 'string', from: 'string', to: 'string', body: 'string', origin: 'string', cluster_id: 'string' },
  when: { charges: 'number' },
};
const NOTIFICATION_COMMON: Record<string, JsonType> = {
  account_id: 'string',
  app_name: 'string',
  app_version: 'string',
  cluster_id: 'string',
  event_category: 'string',
  event_name: 'string',
  msg_id: 'string',
  node: 'string',
};
const REGISTRATION: Record<string, JsonType> = {
  realm: 'string',
  username: 'string',
  from_user: 'string',
  from_host: 'string',
  contact: 'string',
  network_ip: 'string',
  network_port: 'string',
  expires: 'integer',
  user_agent: 'string',
};
const VOICEMAIL: Record<string, JsonType> = {
  from_realm: 'string',
  from_user: 'string',
  to_realm: 'string',
  to_user: 'string',
  voicemail_box: 'string',
  voicemail_id: 'string',
  voicemail_timestamp: 'integer',
  call_id: 'string',
  caller_id_name: 'string',
  caller_id_number: 'string',
  voicemail_length: 'integer',
};
/** Each notification's own fields (its required headers and those a switch fills), by event name. */
// kapi_notifications' fax definitions: required Account-ID, Fax-ID (inbound), From/To realm and
// user; optional Call-ID, caller and callee ids, Fax-Timestamp, FaxBox-ID, Owner-ID (Fax-Info, an
// object, tel leaves out); outbound requires the caller and callee numbers, Fax-ID and Fax-JobId
const INBOUND_FAX: Record<string, JsonType> = {
  fax_id: 'string',
  faxbox_id: 'string',
  owner_id: 'string',
  from_realm: 'string',
  from_user: 'string',
  to_realm: 'string',
  to_user: 'string',
  call_id: 'string',
  caller_id_name: 'string',
  caller_id_number: 'string',
  callee_id_name: 'string',
  callee_id_number: 'string',
  fax_timestamp: 'integer',
};
const OUTBOUND_FAX: Record<string, JsonType> = {
  fax_id: 'string',
  fax_jobid: 'string',
  faxbox_id: 'string',
  call_id: 'string',
  caller_id_name: 'string',
  caller_id_number: 'string',
  callee_id_name: 'string',
  callee_id_number: 'string',
  fax_timestamp: 'integer',
};

const NOTIFICATIONS: Record<string, Record<string, JsonType>> = {
  deregister: REGISTRATION,
  register: REGISTRATION,
  inbound_fax: INBOUND_FAX,
  inbound_fax_error: { ...INBOUND_FAX, fax_error: 'string' },
  outbound_fax: OUTBOUND_FAX,
  outbound_fax_error: { ...OUTBOUND_FAX, fax_error: 'string' },
  low_balance: { current_balance: 'number' },
  missed_call: {
    call_bridged: 'boolean',
    call_id: 'string',
    message_left: 'boolean',
    caller_id_name: 'string',
    caller_id_number: 'string',
    from_realm: 'string',
    from_user: 'string',
    to_realm: 'string',
    to_user: 'string',
    timestamp: 'integer',
  },
  new_account: { account_name: 'string', account_realm: 'string' },
  new_user: { user_id: 'string' },
  voicemail_full: { max_message_count: 'integer', message_count: 'integer', voicemail_box: 'string' },
  voicemail_new: VOICEMAIL,
  voicemail_saved: VOICEMAIL,
  // tel adds why the hook was disabled (Kazoo sends only the hook's id)
  webhook_disabled: { hook_id: 'string', disable_reason: 'string' },
};

/** The table of a payload of `hook` (notifications: of its event name). */
function tableOf(hook: string, payload: Record<string, unknown>): Table {
  switch (hook) {
    case 'channel_create':
    case 'channel_answer':
      return { always: CHANNEL_BASE, when: CHANNEL_WHEN };
    case 'channel_bridge':
      return {
        always: { ...CHANNEL_BASE, other_leg_call_id: 'string', original_number: 'string', other_leg_destination_number: 'string' },
        when: CHANNEL_WHEN,
      };
    case 'channel_destroy':
      return {
        always: { ...CHANNEL_BASE, hangup_cause: 'string', hangup_code: 'string', duration_seconds: 'integer', ringing_seconds: 'integer', billing_seconds: 'integer' },
        when: CHANNEL_WHEN,
      };
    case 'sms':
    case 'mms':
      return MESSAGE;
    case 'object':
      return { always: { id: 'string', account_id: 'string', action: 'string', type: 'string', cluster_id: 'string' } };
    case 'parking':
      return {
        always: {
          account_id: 'string',
          call_id: 'string',
          callee_id_name: 'string',
          callee_id_number: 'string',
          caller_id_name: 'string',
          caller_id_number: 'string',
          cluster_id: 'string',
          event_name: 'string',
          parking_slot: 'integer',
        },
      };
    case 'notifications':
      return { always: { ...NOTIFICATION_COMMON, ...NOTIFICATIONS[String(payload.event_name)] } };
    default:
      throw new Error(`no table for ${hook}`);
  }
}

function typeOf(v: unknown): string {
  if (Number.isInteger(v)) return 'integer';
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return 'object';
  return typeof v;
}

/** The payload's fields that break its table: unknown, missing, or of another type. */
function mismatches(hook: string, payload: Record<string, unknown>): string[] {
  const t = tableOf(hook, payload);
  const known = { ...t.always, ...(t.when ?? {}) };
  const out: string[] = [];
  for (const k of Object.keys(t.always)) if (!(k in payload)) out.push(`${k}: missing`);
  for (const [k, v] of Object.entries(payload)) {
    if (!(k in known)) out.push(`${k}: not in the table`);
    else if (typeOf(v) !== known[k] && !(known[k] === 'number' && typeof v === 'number')) out.push(`${k}: ${typeOf(v)}, not ${known[k]}`);
  }
  return out;
}

describe('payload fields per hook type, against tables written from Kazoo', () => {
  let srv: TestServer;
  let sink: Sink;
  let token: string;
  let account: string;
  let device: string;
  let user: string;
  let localResource: string;
  let globalResource: string;
  let n = 0;
  const json = (r: SinkRequest) => JSON.parse(r.body) as Record<string, unknown>;
  const simulate = (data: Record<string, unknown>) => srv.request('PUT', `/v2/accounts/${account}/simulations`, { token, data });

  /** Hooks of every type to one new sink path; answers what the simulations delivered there. */
  async function delivered(hooks: string[], count: number, fire: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
    const path = `/fields${++n}`;
    for (const hook of hooks) {
      const r = await srv.request('PUT', `/v2/accounts/${account}/webhooks`, { token, data: { name: `${hook} ${n}`, hook, uri: `${sink.url}${path}`, format: 'json' } });
      expect(r.status, r.text).toBe(201);
    }
    await fire();
    return (await sink.waitFor(count, { filter: (r) => r.path === path })).map(json);
  }

  beforeAll(async () => {
    srv = await startTestServer();
    sink = await startSink();
    token = srv.adminToken;
    account = (await createSubAccount(srv, srv.master.account_id, 'Fields Co')).id;
    user = (await srv.request('PUT', `/v2/accounts/${account}/users`, { token, data: { username: 'ada', password: 'pw-ada-1', first_name: 'Ada', last_name: 'Lovelace' } })).body.data.id;
    device = (await srv.request('PUT', `/v2/accounts/${account}/devices`, { token, data: { name: "Ada's phone", owner_id: user } })).body.data.id;
    localResource = (await srv.request('PUT', `/v2/accounts/${account}/resources`, { token, data: { name: 'Local carrier', gateways: [] } })).body.data.id;
    globalResource = (await srv.request('PUT', '/v2/resources', { token, data: { name: 'Global carrier', gateways: [], emergency: true } })).body.data.id;
  });
  afterAll(async () => {
    await srv.close();
    await sink.close();
  });

  it('GET /v2/webhooks lists every hook type of Kazoo\'s webhooks app, sms and mms included', async () => {
    const r = await srv.request('GET', '/v2/webhooks');
    expect(r.body.data.map((t: { id: string }) => t.id).sort()).toEqual(
      ['channel_answer', 'channel_bridge', 'channel_create', 'channel_destroy', 'mms', 'notifications', 'object', 'parking', 'sms'],
    );
    expect(r.body.data.find((t: { id: string }) => t.id === 'sms')).toMatchObject({ name: 'SMS' });
    expect(Object.keys(r.body.data.find((t: { id: string }) => t.id === 'notifications').modifiers.type.items).sort()).toEqual(
      ['all', ...Object.keys(NOTIFICATIONS)].sort(),
    );
  });

  it('every sample fits its hook type\'s table', () => {
    const ofSample: Record<string, string> = Object.fromEntries(HOOK_IDS.map((h) => [`webhooks_${h}`, h]));
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(ofSample).sort());
    for (const [id, payloads] of Object.entries(SAMPLES)) {
      for (const p of payloads) expect(mismatches(ofSample[id], p), `${id} ${JSON.stringify(p)}`).toEqual([]);
    }
  });

  it('channel events: the base fields always, the authorizing, owner and carrier fields when the call has them', async () => {
    const channels = ['channel_create', 'channel_answer', 'channel_bridge', 'channel_destroy'];
    const plain = await delivered(channels, 4, () => simulate({ kind: 'call' }));
    for (const p of plain) {
      expect(mismatches(String(p.hook_event), p), String(p.hook_event)).toEqual([]);
      for (const k of ['authorizing_id', 'authorizing_type', 'owner_id', 'local_resource_id']) expect(p, k).not.toHaveProperty(k);
      expect(p).toMatchObject({ reseller_id: srv.master.account_id, local_resource_used: true, emergency_resource_used: false });
    }
    const full = await delivered(channels, 4, () => simulate({ kind: 'call', direction: 'outbound', device_id: device, resource_id: localResource }));
    for (const p of full) {
      expect(mismatches(String(p.hook_event), p), String(p.hook_event)).toEqual([]);
      expect(p).toMatchObject({ authorizing_id: device, authorizing_type: 'device', owner_id: user, local_resource_id: localResource, local_resource_used: true });
    }
    const global = await delivered(['channel_create'], 1, () => simulate({ kind: 'call', direction: 'outbound', user_id: user, resource_id: globalResource, answer: false }));
    expect(mismatches('channel_create', global[0])).toEqual([]);
    expect(global[0]).toMatchObject({ authorizing_id: user, authorizing_type: 'user', owner_id: user, local_resource_used: false, emergency_resource_used: true });
    expect(global[0]).not.toHaveProperty('local_resource_id');
  });

  it('sms and mms: Kazoo\'s message fields, charges when the carrier priced the message', async () => {
    const got = await delivered(['sms', 'mms'], 3, async () => {
      await simulate({ kind: 'sms', from: '+442071838750', to: '+14155550123', body: 'hi' });
      await simulate({ kind: 'sms', direction: 'outbound', charges: 0.0075 });
      await simulate({ kind: 'mms', body: 'https://media.example/cat.jpg' });
    });
    for (const p of got) expect(mismatches(String(p.type), p), JSON.stringify(p)).toEqual([]);
    expect(got.find((p) => p.body === 'hi')).toMatchObject({ type: 'sms', from: '+442071838750', to: '+14155550123', origin: 'offnet', account_id: account });
    expect(got.filter((p) => 'charges' in p)).toEqual([expect.objectContaining({ charges: 0.0075 })]);
    expect(got.find((p) => p.type === 'mms')).toMatchObject({ body: 'https://media.example/cat.jpg' });
  });

  it('object and parking events', async () => {
    const got = await delivered(['object', 'parking'], 3, async () => {
      await simulate({ kind: 'object', type: 'user', action: 'doc_deleted' });
      await simulate({ kind: 'parking', slot: 5, outcome: 'abandoned' });
    });
    for (const p of got) expect(mismatches('event_name' in p ? 'parking' : 'object', p), JSON.stringify(p)).toEqual([]);
    expect(got.find((p) => p.action)).toMatchObject({ type: 'user', action: 'doc_deleted', account_id: account });
  });

  it('every notification, with its own fields', async () => {
    const names = Object.keys(NOTIFICATIONS);
    const got = await delivered(['notifications'], names.length, async () => {
      for (const event_name of names) {
        const r = await simulate({ kind: 'notification', event_name, fields: event_name === 'low_balance' ? { current_balance: 1.25 } : {} });
        expect(r.status, r.text).toBe(201);
      }
    });
    expect(got.map((p) => p.event_name).sort()).toEqual([...names].sort());
    for (const p of got) expect(mismatches('notifications', p), String(p.event_name)).toEqual([]);
    expect(got.find((p) => p.event_name === 'low_balance')).toMatchObject({ current_balance: 1.25, app_name: 'tel', event_category: 'notification' });
    const unknown = await simulate({ kind: 'notification', event_name: 'no_such_thing' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.data.event_name.enum).toBeTruthy();
    const wrong = await simulate({ kind: 'notification', event_name: 'low_balance', fields: { current_balance: 'lots', colour: 'red' } });
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.body.data).sort()).toEqual(['fields.colour', 'fields.current_balance']);
  });
});

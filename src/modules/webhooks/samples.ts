/** Sample payloads of every hook type, as `GET /v2/webhooks/samples/{sample_id}` shows them. */

const ACCOUNT = '4c8b6d1e0f2a39b7c5d4e3f2a1b0c9d8';
const CALL_ID = 'b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d@lab.tel.local';
const OTHER_LEG = '7d6c5b4a-3f2e-4d1c-9b8a-7f6e5d4c3b2a@lab.tel.local';

function channel(event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    account_id: ACCOUNT,
    authorizing_id: '9a8b7c6d5e4f30211203f4e5d6c7b8a9',
    authorizing_type: 'device',
    call_direction: 'inbound',
    call_forwarded: false,
    call_id: CALL_ID,
    callee_id_name: 'Front Desk',
    callee_id_number: '+14155550123',
    caller_id_name: 'Ada Lovelace',
    caller_id_number: '+442071838750',
    custom_application_vars: {},
    custom_channel_vars: {},
    emergency_resource_used: false,
    from: '+442071838750@lab.tel.local',
    hook_event: event,
    inception: 'onnet',
    is_internal_leg: false,
    local_resource_used: false,
    owner_id: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    request: '+14155550123@lab.tel.local',
    reseller_id: '1a2b3c4d5e6f708192a3b4c5d6e7f809',
    timestamp: 63_900_000_000,
    to: '+14155550123@lab.tel.local',
    ...extra,
  };
}

function notification(eventName: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { account_id: ACCOUNT, event_category: 'notification', event_name: eventName, msg_id: '5e0c9a7b3d21', ...extra };
}

function object(action: string): Record<string, unknown> {
  return { account_id: ACCOUNT, action, id: 'e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0', type: 'user' };
}

/** Sample payloads by sample id. */
export const SAMPLES: Record<string, Record<string, unknown>[]> = {
  webhooks_channel_answer: [channel('channel_answer')],
  webhooks_channel_bridge: [
    channel('channel_bridge', {
      original_number: '+14155550123',
      other_leg_call_id: OTHER_LEG,
      other_leg_destination_number: '1001',
    }),
  ],
  webhooks_channel_create: [channel('channel_create')],
  webhooks_channel_destroy: [
    channel('channel_destroy', {
      billing_seconds: 42,
      duration_seconds: 47,
      hangup_cause: 'NORMAL_CLEARING',
      hangup_code: 'sip:200',
      other_leg_call_id: OTHER_LEG,
      ringing_seconds: 5,
    }),
  ],
  webhooks_notifications: [
    notification('deregister', { from_user: 'desk-1001', realm: 'lab.tel.local', network_ip: '192.0.2.10', network_port: '5060', expires: 300 }),
    notification('register', { from_user: 'desk-1001', realm: 'lab.tel.local', network_ip: '192.0.2.10', network_port: '5060', expires: 300 }),
    notification('low_balance', { current_balance: 4.5 }),
    notification('missed_call', { call_id: CALL_ID, caller_id_name: 'Ada Lovelace', caller_id_number: '+442071838750', call_bridged: false, message_left: false }),
    notification('voicemail_full', { voicemail_box: 'a9b8c7d6e5f40312a1b2c3d4e5f60718', max_message_count: 100, message_count: 100 }),
    notification('voicemail_new', {
      call_id: CALL_ID,
      caller_id_name: 'Ada Lovelace',
      caller_id_number: '+442071838750',
      voicemail_box: 'a9b8c7d6e5f40312a1b2c3d4e5f60718',
      voicemail_id: '202601-3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a88',
      voicemail_length: 12_400,
      voicemail_timestamp: 63_900_000_060,
    }),
    notification('webhook_disabled', { hook_id: '2f3e4d5c6b7a89901a2b3c4d5e6f7081' }),
  ],
  webhooks_object: [object('doc_created'), object('doc_deleted'), object('doc_edited')],
  webhooks_parking: [
    {
      account_id: ACCOUNT,
      call_id: CALL_ID,
      callee_id_name: 'Parking Lot',
      callee_id_number: '*3101',
      caller_id_name: 'Ada Lovelace',
      caller_id_number: '+442071838750',
      event_name: 'PARK_PARKED',
      parking_slot: 101,
    },
  ],
};

/** The sample payloads of one sample id whose fields have the values given (`filter_<field>=value`); undefined for an unknown id. */
export function filteredSamples(sampleId: string, filters: [field: string, value: string][]): Record<string, unknown>[] | undefined {
  // own keys only: `toString` or `constructor` are not sample ids nor payload fields
  if (!Object.hasOwn(SAMPLES, sampleId)) return undefined;
  const list = SAMPLES[sampleId];
  return list.filter((s) => filters.every(([field, value]) => Object.hasOwn(s, field) && s[field] !== undefined && String(s[field]) === value));
}

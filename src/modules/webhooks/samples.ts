/** Sample payloads of every hook type, as `GET /v2/webhooks/samples/{sample_id}` shows them. */
import { NOTIFICATION_TYPES } from './notifications.js';

const ACCOUNT = '4c8b6d1e0f2a39b7c5d4e3f2a1b0c9d8';
const CALL_ID = 'b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d@lab.tel.local';
const OTHER_LEG = '7d6c5b4a-3f2e-4d1c-9b8a-7f6e5d4c3b2a@lab.tel.local';
const CLUSTER = '6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b';

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
    cluster_id: CLUSTER,
    custom_application_vars: {},
    custom_channel_vars: {},
    emergency_resource_used: false,
    from: '+442071838750@lab.tel.local',
    hook_event: event,
    inception: '+14155550123@lab.tel.local',
    is_internal_leg: false,
    local_resource_id: 'd4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9',
    local_resource_used: true,
    owner_id: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    request: '+14155550123@lab.tel.local',
    reseller_id: '1a2b3c4d5e6f708192a3b4c5d6e7f809',
    timestamp: 63_900_000_000,
    to: '+14155550123@lab.tel.local',
    ...extra,
  };
}

/** A notification as a hook receives it, with the fields tel sends (see notifications.ts). */
function notification(eventName: string): Record<string, unknown> {
  const fields = NOTIFICATION_TYPES[eventName].sample({ name: 'Lab', realm: 'lab.tel.local' });
  return {
    account_id: ACCOUNT,
    app_name: 'tel',
    app_version: '0.1.0',
    cluster_id: CLUSTER,
    event_category: 'notification',
    event_name: eventName,
    msg_id: '5e0c9a7b3d21f0e8',
    node: 'tel@lab',
    ...fields,
  };
}

function message(type: 'sms' | 'mms', body: string): Record<string, unknown> {
  return {
    id: 'c0ffee00d15ea5e0c0ffee00d15ea5e0',
    account_id: ACCOUNT,
    type,
    from: '+442071838750',
    to: '+14155550123',
    body,
    origin: 'offnet',
    charges: 0.0075,
    cluster_id: CLUSTER,
  };
}

function object(action: string): Record<string, unknown> {
  return { account_id: ACCOUNT, action, cluster_id: CLUSTER, id: 'e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0', type: 'user' };
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
  webhooks_mms: [message('mms', 'https://media.lab.tel.local/c0ffee00.jpg')],
  webhooks_notifications: Object.keys(NOTIFICATION_TYPES).map(notification),
  webhooks_object: [object('doc_created'), object('doc_deleted'), object('doc_edited')],
  webhooks_parking: [
    {
      account_id: ACCOUNT,
      call_id: CALL_ID,
      callee_id_name: 'Parking Lot',
      callee_id_number: '*3101',
      caller_id_name: 'Ada Lovelace',
      caller_id_number: '+442071838750',
      cluster_id: CLUSTER,
      event_name: 'PARK_PARKED',
      parking_slot: 101,
    },
  ],
  webhooks_sms: [message('sms', 'Running late, start without me')],
};

/** The sample payloads of one sample id; undefined for an unknown id. */
export function samplesOf(sampleId: string): Record<string, unknown>[] | undefined {
  // own keys only: `toString` or `constructor` are not sample ids
  return Object.hasOwn(SAMPLES, sampleId) ? SAMPLES[sampleId] : undefined;
}

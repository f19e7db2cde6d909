import type { Core } from '../../core-type.js';
import { newId } from '../../util/ids.js';
import { NODE_NAME } from '../../util/node-name.js';
import { nowGregorian } from '../../util/time.js';
import { VERSION } from '../../version.js';
import type { Account } from '../accounts/service.js';

/** A JSON type a notification field has. */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean';

/** One notification Kazoo sends `notifications` hooks: what it says, and the fields it carries. */
export interface NotificationType {
  friendly_name: string;
  description: string;
  /** its fields beyond the common ones, as Kazoo's notification API defines them, with their types */
  fields: Record<string, FieldType>;
  /** plausible values of those fields for an account, which a simulation's own replace */
  sample(account: Pick<Account, 'name' | 'realm'>): Record<string, unknown>;
}

/** Fields every notification carries (Kazoo's message headers, lower-cased as its webhooks send them). */
export const COMMON_NOTIFICATION_FIELDS: Record<string, FieldType> = {
  account_id: 'string',
  app_name: 'string',
  app_version: 'string',
  event_category: 'string',
  event_name: 'string',
  msg_id: 'string',
  node: 'string',
};

const DEVICE = { username: 'desk-1001', from_user: 'desk-1001', network_ip: '192.0.2.10', network_port: '5060', expires: 300, user_agent: 'Yealink SIP-T46U' };
const registration = (account: Pick<Account, 'realm'>) => ({ ...DEVICE, realm: account.realm, from_host: account.realm, contact: `<sip:desk-1001@192.0.2.10:5060>` });
const registrationFields: Record<string, FieldType> = {
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
const CALLER = { caller_id_name: 'Ada Lovelace', caller_id_number: '+442071838750' };
const voicemailFields: Record<string, FieldType> = {
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
const voicemail = (account: Pick<Account, 'realm'>) => ({
  from_realm: account.realm,
  from_user: CALLER.caller_id_number,
  to_realm: account.realm,
  to_user: '1001',
  voicemail_box: newId(),
  voicemail_id: `${new Date().toISOString().slice(0, 7).replace('-', '')}-${newId()}`,
  voicemail_timestamp: nowGregorian(),
  call_id: `${newId()}@${account.realm}`,
  ...CALLER,
  voicemail_length: 12_000,
});

const faxFields: Record<string, FieldType> = {
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
const faxSample = (account: Pick<Account, 'realm'>) => ({
  fax_id: `${new Date().toISOString().slice(0, 7).replace('-', '')}-${newId()}`,
  faxbox_id: newId(),
  owner_id: newId(),
  from_realm: account.realm,
  from_user: CALLER.caller_id_number,
  to_realm: account.realm,
  to_user: '+14155550150',
  call_id: `${newId()}@${account.realm}`,
  ...CALLER,
  callee_id_name: 'Fax',
  callee_id_number: '+14155550150',
  fax_timestamp: nowGregorian(),
});
const outboundFaxFields: Record<string, FieldType> = {
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
const outboundFaxSample = (account: Pick<Account, 'realm'>) => {
  const job = newId();
  return {
    fax_id: `${new Date().toISOString().slice(0, 7).replace('-', '')}-${job}`,
    fax_jobid: job,
    faxbox_id: newId(),
    call_id: `${newId()}@${account.realm}`,
    ...CALLER,
    callee_id_name: '+14155550150',
    callee_id_number: '+14155550150',
    fax_timestamp: nowGregorian(),
  };
};

/**
 * The notifications tel sends `notifications` hooks, by event name: their fields are those
 * Kazoo's notification API gives each (its required headers and the optional ones a switch
 * fills), lower-cased as Kazoo's webhooks send them. Where tel adds a field Kazoo does not
 * send, its description says so.
 */
export const NOTIFICATION_TYPES: Record<string, NotificationType> = {
  deregister: {
    friendly_name: 'De-Registration',
    description: 'A device failed to re-register and its contact expired',
    fields: registrationFields,
    sample: registration,
  },
  register: {
    friendly_name: 'Registration',
    description: 'A device registered',
    fields: registrationFields,
    sample: registration,
  },
  inbound_fax: {
    friendly_name: 'Successful Fax Reception',
    description: 'A fax was received',
    fields: faxFields,
    sample: faxSample,
  },
  inbound_fax_error: {
    friendly_name: 'Fax Reception Error',
    description: 'Receiving a fax failed',
    fields: { ...faxFields, fax_error: 'string' },
    sample: (account) => ({ ...faxSample(account), fax_error: 'Far end hung up' }),
  },
  outbound_fax: {
    friendly_name: 'Successful Fax Transmission',
    description: 'A fax was sent',
    fields: outboundFaxFields,
    sample: outboundFaxSample,
  },
  outbound_fax_error: {
    friendly_name: 'Fax Transmission Error',
    description: 'Sending a fax failed, its retries spent',
    fields: { ...outboundFaxFields, fax_error: 'string' },
    sample: (account) => ({ ...outboundFaxSample(account), fax_error: 'No answer' }),
  },
  low_balance: {
    friendly_name: 'Account Low Balance',
    description: "The account's credit fell below its notification threshold",
    fields: { current_balance: 'number' },
    sample: () => ({ current_balance: 4.5 }),
  },
  missed_call: {
    friendly_name: 'Missed Call',
    description: 'A call was not answered and a missed-call action ran',
    fields: {
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
    sample: (account) => ({
      call_bridged: false,
      call_id: `${newId()}@${account.realm}`,
      message_left: false,
      ...CALLER,
      from_realm: account.realm,
      from_user: CALLER.caller_id_number,
      to_realm: account.realm,
      to_user: '1001',
      timestamp: nowGregorian(),
    }),
  },
  new_account: {
    friendly_name: 'New Account',
    description: 'An account was created',
    fields: { account_name: 'string', account_realm: 'string' },
    sample: (account) => ({ account_name: account.name, account_realm: account.realm }),
  },
  new_user: {
    friendly_name: 'New User',
    description: 'A user was created',
    fields: { user_id: 'string' },
    sample: () => ({ user_id: newId() }),
  },
  voicemail_full: {
    friendly_name: 'Voicemail Box Full',
    description: 'A voicemail box is full',
    fields: { max_message_count: 'integer', message_count: 'integer', voicemail_box: 'string' },
    sample: () => ({ max_message_count: 100, message_count: 100, voicemail_box: newId() }),
  },
  voicemail_new: {
    friendly_name: 'New Voicemail Message',
    description: 'A voicemail message was left',
    fields: voicemailFields,
    sample: voicemail,
  },
  voicemail_saved: {
    friendly_name: 'Voicemail Message Saved',
    description: "A voicemail message was saved in its box's new folder",
    fields: voicemailFields,
    sample: voicemail,
  },
  webhook_disabled: {
    friendly_name: 'Webhook Disabled',
    description: 'A webhook was disabled after repeated failures (tel adds disable_reason, the why)',
    fields: { hook_id: 'string', disable_reason: 'string' },
    sample: () => ({ hook_id: newId(), disable_reason: 'too many failed deliveries' }),
  },
};

/**
 * A notification as `notifications` hooks receive it: the common fields (the message's own,
 * `app_name` tel), then `fields`. Published on the bus of `core`, in the caller's transaction.
 */
export function publishNotification(core: Core, accountId: string, eventName: string, fields: Record<string, unknown>): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    account_id: accountId,
    app_name: 'tel',
    app_version: VERSION,
    event_category: 'notification',
    event_name: eventName,
    msg_id: newId().slice(0, 16),
    node: NODE_NAME,
    ...fields,
  };
  core.bus.publish({ type: 'notifications', accountId, payload });
  return payload;
}

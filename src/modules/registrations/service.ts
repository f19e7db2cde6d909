import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { newId } from '../../util/ids.js';
import { nowGregorian } from '../../util/time.js';
import { getAccount } from '../accounts/service.js';
import { getDoc, type StoredDoc } from '../documents/store.js';
import { publishNotification } from '../webhooks/notifications.js';
import {
  anyLapsed,
  findRegistration,
  removeAccountRegistrations,
  removeRegistration,
  saveRegistration,
  takeLapsed,
  type Registration,
} from './store.js';

/** How long a registration lasts when the device says nothing (Kazoo's devices schema: `sip.expire_seconds`, 300). */
export const DEFAULT_EXPIRES_S = 300;

/** The address of the SIP proxy simulated registrations come through (TEST-NET-1). */
const SIMULATED_PROXY_IP = '192.0.2.1';

/** What a simulated phone's REGISTER says beyond its device's settings. */
export interface Register {
  /** seconds it asks to stay registered (default: the device's `sip.expire_seconds`) */
  expires?: number;
  userAgent?: string;
  /** where the phone is: its address and port, as the registrar saw them */
  networkIp?: string;
  networkPort?: string;
}

type Doc = Record<string, unknown>;
const obj = (v: unknown): Doc => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {});

/** A device's SIP username (lower case, as the registrar keys it), or the 400 of a device that cannot register. */
function usernameOf(device: StoredDoc): string {
  const sip = obj(device.doc.sip);
  const refuse = (message: string) => errors.invalidField('device_id', 'invalid', message, { value: device.id });
  if (device.doc.enabled === false) throw refuse('the device is disabled: its REGISTER is refused');
  if (sip.method === 'ip') throw refuse('the device authenticates by IP: it does not register');
  if (typeof sip.username !== 'string' || sip.username === '') throw refuse('the device has no SIP username to register with');
  return sip.username.toLowerCase();
}

/**
 * A device registers (or refreshes its registration): the fields Kazoo's registrar keeps and
 * `cb_registrations` answers (ecallmgr_registrar `to_props/1` without the account's id and db, with
 * the contact's address and port). The first registration of a username publishes Kazoo's
 * `register` notification; a refresh does not. Answers the registration and the notification
 * published, if any.
 */
export function register(core: Core, accountId: string, deviceId: string, r: Register = {}): { registration: Registration; notification?: Record<string, unknown> } {
  return transaction(core.db, () => {
    const device = getDoc(core, 'device', accountId, deviceId);
    const username = usernameOf(device);
    const account = getAccount(core, accountId);
    const sip = obj(device.doc.sip);
    const realm = typeof sip.realm === 'string' && sip.realm !== '' ? sip.realm : account.realm;
    const expires = r.expires ?? (Number.isInteger(sip.expire_seconds) ? Number(sip.expire_seconds) : DEFAULT_EXPIRES_S);
    const ip = r.networkIp ?? '192.0.2.10';
    const port = r.networkPort ?? '5060';
    const now = nowGregorian();
    const previous = findRegistration(core, accountId, username);
    const contact = `<sip:${username}@${ip}:${port};transport=udp>`;
    const fields: Record<string, unknown> = {
      username,
      realm,
      user_agent: r.userAgent ?? (previous?.fields.user_agent as string | undefined) ?? 'tel simulated phone',
      call_id: (previous?.fields.call_id as string | undefined) ?? `${newId()}@${ip}`,
      from_user: username,
      from_host: realm,
      to_user: username,
      to_host: realm,
      network_ip: ip,
      network_port: port,
      // the SIP proxy the REGISTER came through (Kazoo's Kamailio): a simulated one
      proxy_ip: SIMULATED_PROXY_IP,
      proxy_port: '5060',
      proxy_protocol: 'udp',
      event_timestamp: now,
      contact,
      original_contact: contact,
      ...(previous && previous.fields.contact !== contact ? { previous_contact: previous.fields.contact } : {}),
      expires,
      account_realm: account.realm,
      account_name: account.name,
      authorizing_id: device.id,
      authorizing_type: 'device',
      suppress_unregister_notify: device.doc.suppress_unregister_notifications === true,
      register_overwrite_notify: device.doc.register_overwrite_notify === true,
      ...(typeof device.doc.owner_id === 'string' ? { owner_id: device.doc.owner_id } : {}),
      ...(typeof device.doc.presence_id === 'string' ? { presence_id: device.doc.presence_id } : {}),
      first_registration: !previous,
      initial_registration: (previous?.fields.initial_registration as number | undefined) ?? now,
      last_registration: now,
      source_ip: ip,
      source_port: port,
      contact_ip: ip,
      contact_port: port,
    };
    const registration: Registration = { accountId, username, deviceId: device.id, expiresAt: Date.now() + expires * 1000, fields };
    saveRegistration(core, registration);
    if (previous) return { registration };
    return { registration, notification: notify(core, 'register', registration) };
  });
}

/** The fields of Kazoo's `register` / `deregister` notifications for a registration (those tel's notification types declare). */
function notify(core: Core, event: 'register' | 'deregister', r: Registration): Record<string, unknown> {
  const f = r.fields;
  return publishNotification(core, r.accountId, event, {
    realm: f.realm,
    username: f.username,
    from_user: f.from_user,
    from_host: f.from_host,
    contact: f.contact,
    network_ip: f.network_ip,
    network_port: f.network_port,
    expires: f.expires,
    user_agent: f.user_agent,
  });
}

/**
 * A device's registration ends: it unregisters (a REGISTER with `Expires: 0`) or its contact
 * expires. Kazoo's registrar then publishes `deregister`, unless the device suppresses it
 * (`suppress_unregister_notifications`). Answers the notification published, if any; a device
 * that is not registered is a 404.
 */
export function deregister(core: Core, accountId: string, deviceId: string): { registration: Registration; notification?: Record<string, unknown> } {
  return transaction(core.db, () => {
    const device = getDoc(core, 'device', accountId, deviceId);
    const username = usernameOf(device);
    const registration = findRegistration(core, accountId, username);
    if (!registration) throw errors.invalidField('device_id', 'not_found', 'the device is not registered', { value: deviceId });
    removeRegistration(core, accountId, username);
    return { registration, notification: lapsed(core, registration) };
  });
}

/** The `deregister` notification of a registration that ended, unless its device suppresses it. */
function lapsed(core: Core, r: Registration): Record<string, unknown> | undefined {
  return r.fields.suppress_unregister_notify === true ? undefined : notify(core, 'deregister', r);
}

/**
 * `DELETE …/registrations/{username}`: flushes a username's registration (no notification, as
 * Kazoo's flush). A username no device of the account has is a 404 naming it (Kazoo's
 * `response_bad_identifier/2`).
 */
export function flushUsername(core: Core, accountId: string, username: string): void {
  const name = username.toLowerCase();
  const device = stmt(core.db, `SELECT id FROM docs WHERE account_id = ? AND kind = 'device' AND lower(json_extract(doc, '$.sip.username')) = ? LIMIT 1`).get(accountId, name);
  if (!device) throw errors.badIdentifierList(username);
  removeRegistration(core, accountId, name);
}

/** `DELETE …/registrations`: flushes every registration of the account (no notification). */
export function flushAccount(core: Core, accountId: string): void {
  getAccount(core, accountId);
  removeAccountRegistrations(core, accountId);
}

/** Rows the sweeper takes at once: a few milliseconds of work, then the event loop again. */
const SWEEP_BATCH = 200;

/**
 * Removes the registrations that lapsed, a batch at a time, each publishing its `deregister`
 * (as Kazoo's registrar does when it expires one). Answers how many went. Most sweeps find none:
 * they only read (a look at the index), and take no write lock from the CLI or a job.
 */
export function sweepLapsed(core: Core, nowMs = Date.now()): number {
  if (!anyLapsed(core, nowMs)) return 0;
  return transaction(core.db, () => {
    const gone = takeLapsed(core, nowMs, SWEEP_BATCH);
    for (const r of gone) lapsed(core, r);
    return gone.length;
  });
}

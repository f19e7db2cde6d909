import type { Core } from '../../core-type.js';
import type { ValidationErrors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import { mergeErrors } from '../../schema/validate.js';
import { normalizeNumber } from '../numbers/converters.js';

// Kazoo's checks of documents beyond their schemas: what must be unique, and where. Each answers
// Kazoo's `unique` (or `required`) error, worded as Kazoo words it, or nothing.

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Another document of the account whose `field` in `doc_keys` (migration 3100) holds one of
 * `values`: [id, name, value], or undefined. One search of the table's key per value.
 */
function holderOf(core: Core, accountId: string, field: string, values: string[], selfId?: string) {
  if (values.length === 0) return undefined;
  return stmt(
    core.db,
    `SELECT k.doc_id AS id, json_extract(d.doc, '$.name') AS name, k.value AS value
       FROM doc_keys k JOIN docs d ON d.id = k.doc_id
      WHERE k.account_id = ? AND k.field = ? AND k.value IN (SELECT value FROM json_each(?)) AND k.doc_id IS NOT ?
      LIMIT 1`,
  ).get(accountId, field, JSON.stringify(values), selfId ?? null) as { id: string; name: string | null; value: string } | undefined;
}

/**
 * A callflow's numbers as Kazoo stores and compares them (`cb_callflows` normalises them before
 * validating): each through the account's dial plan and the E.164 converters (numbers/converters.ts),
 * so `4155550100`, `14155550100` and `+14155550100` are one number. What is not a non-empty
 * string is left for the schema to refuse.
 */
export function prepareCallflow(core: Core, accountId: string, doc: Record<string, unknown>): void {
  if (!Array.isArray(doc.numbers)) return;
  doc.numbers = doc.numbers.map((n: unknown) => (typeof n === 'string' && n !== '' ? normalizeNumber(core, accountId, n) : n));
}

/**
 * A callflow needs a number or a pattern, and each of its numbers and patterns may route only one
 * callflow of the account.
 */
export function checkCallflow(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  const numbers = strings(doc.numbers);
  const patterns = strings(doc.patterns);
  if (numbers.length === 0 && patterns.length === 0) {
    return { numbers: { required: { message: 'Callflows must be assigned at least one number or pattern' } } };
  }
  const clash = (field: 'numbers' | 'patterns', word: string): ValidationErrors | undefined => {
    const t = holderOf(core, accountId, field, field === 'numbers' ? numbers : patterns, selfId);
    if (!t) return undefined;
    return { [field]: { unique: { message: `${word} ${t.value} exists in callflow ${t.id} ${t.name ?? ''}`, cause: t.value } } };
  };
  return mergeErrors(clash('numbers', 'Number'), clash('patterns', 'Pattern'));
}

/** A voicemail box's mailbox is a number, and no other box of the account has it. */
export function checkVmbox(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  if (doc.mailbox === undefined) return undefined;
  const refused = { mailbox: { unique: { message: 'Invalid mailbox number or already exists' } } };
  const mailbox = String(doc.mailbox);
  if (!/^[+-]?\d+$/.test(mailbox)) return refused;
  // compared as numbers, as Kazoo's view of mailboxes keys them
  const taken = stmt(
    core.db,
    `SELECT id FROM docs WHERE account_id = ? AND kind = 'vmbox' AND CAST(json_extract(doc, '$.mailbox') AS INTEGER) = ? AND id IS NOT ? LIMIT 1`,
  ).get(accountId, Number(mailbox), selfId ?? null);
  return taken ? refused : undefined;
}

/** A MAC address as Kazoo's provisioner compares them: hex digits only, lower case ('' for none). */
const cleanMac = (mac: string) => mac.toLowerCase().replace(/[^0-9a-f]/g, '');

/**
 * Whether another device of the account has this MAC address (cleaned): a search of `doc_keys`,
 * where the MAC addresses of hex digits and the usual separators are kept cleaned; those written
 * with other characters (kept as written, rare) are cleaned and compared here.
 */
function macTaken(core: Core, accountId: string, mac: string, selfId?: string): boolean {
  const self = selfId ?? null;
  const cleaned = `SELECT 1 FROM doc_keys WHERE account_id = ? AND field = 'mac_address' AND value = ? AND doc_id IS NOT ? LIMIT 1`;
  if (stmt(core.db, cleaned).get(accountId, mac, self)) return true;
  const odd = stmt(core.db, `SELECT value FROM doc_keys WHERE account_id = ? AND field = 'mac_address_raw' AND doc_id IS NOT ?`).all(accountId, self);
  return (odd as { value: string }[]).some((r) => cleanMac(r.value) === mac);
}

/**
 * A device's MAC address and SIP username are its own in the account: a MAC address compared
 * cleaned (one with no hex digit is none, as Kazoo's provisioner reads it), a username whatever
 * its letter case within the same realm. Each an index search (migration 3100).
 */
export function checkDevice(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  const errs: (ValidationErrors | undefined)[] = [];
  const mac = typeof doc.mac_address === 'string' ? cleanMac(doc.mac_address) : '';
  if (mac !== '' && macTaken(core, accountId, mac, selfId)) {
    errs.push({ mac_address: { unique: { message: 'MAC address already in use', cause: doc.mac_address } } });
  }
  const sip = doc.sip as Record<string, unknown> | undefined;
  if (typeof sip?.username === 'string' && (sip.method ?? 'password') === 'password') {
    // `lower` on both sides: the expression of the index (ASCII letters, as Kazoo lowers them)
    const taken = stmt(
      core.db,
      `SELECT 1 FROM docs WHERE account_id = ? AND kind = 'device' AND lower(json_extract(doc, '$.sip.username')) = lower(?)
         AND json_extract(doc, '$.sip.realm') IS ? AND id IS NOT ? LIMIT 1`,
    ).get(accountId, sip.username, typeof sip.realm === 'string' ? sip.realm : null, selfId ?? null);
    if (taken) errs.push({ 'sip.username': { unique: { message: 'SIP credentials already in use', cause: sip.username } } });
  }
  return mergeErrors(...errs);
}

/** A fax box's own SMTP address is no other fax box's, in any account. */
export function checkFaxbox(core: Core, _accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  const email = doc.custom_smtp_email_address;
  if (typeof email !== 'string') return undefined;
  const taken = stmt(
    core.db,
    `SELECT id FROM docs WHERE kind = 'faxbox' AND json_extract(doc, '$.custom_smtp_email_address') = ? AND id IS NOT ? LIMIT 1`,
  ).get(email, selfId ?? null);
  return taken ? { custom_smtp_email_address: { unique: { message: 'email address must be unique', cause: email } } } : undefined;
}

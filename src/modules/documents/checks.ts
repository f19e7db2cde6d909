import type { Core } from '../../core-type.js';
import type { ValidationErrors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import { mergeErrors } from '../../schema/validate.js';

// Kazoo's checks of documents beyond their schemas: what must be unique, and where. Each answers
// Kazoo's `unique` (or `required`) error, worded as Kazoo words it, or nothing.

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Other documents of a kind in an account whose list field holds one of `values`: [id, name, value]. */
function holdersOf(core: Core, kind: string, accountId: string, field: string, values: string[], selfId?: string) {
  if (values.length === 0) return [];
  const rows = stmt(
    core.db,
    `SELECT d.id AS id, json_extract(d.doc, '$.name') AS name, v.value AS value
       FROM docs d, json_each(d.doc, '$.${field}') v
      WHERE d.account_id = ? AND d.kind = ? AND v.value IN (SELECT value FROM json_each(?))`,
  ).all(accountId, kind, JSON.stringify(values)) as { id: string; name: string | null; value: string }[];
  return rows.filter((r) => r.id !== selfId);
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
    const taken = holdersOf(core, 'callflow', accountId, field, field === 'numbers' ? numbers : patterns, selfId);
    if (taken.length === 0) return undefined;
    const t = taken[0];
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

/** A MAC address as Kazoo's provisioner compares them: hex digits only, lower case. */
const cleanMac = (mac: string) => mac.toLowerCase().replace(/[^0-9a-f]/g, '');

/** A device's MAC address and SIP username are its own in the account. */
export function checkDevice(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  const errs: (ValidationErrors | undefined)[] = [];
  const others = () =>
    (stmt(core.db, `SELECT id, doc FROM docs WHERE account_id = ? AND kind = 'device'`).all(accountId) as { id: string; doc: string }[])
      .filter((r) => r.id !== selfId)
      .map((r) => JSON.parse(r.doc) as Record<string, unknown>);
  if (typeof doc.mac_address === 'string' && doc.mac_address !== '') {
    const mac = cleanMac(doc.mac_address);
    if (others().some((d) => typeof d.mac_address === 'string' && cleanMac(d.mac_address) === mac)) {
      errs.push({ mac_address: { unique: { message: 'MAC address already in use', cause: doc.mac_address } } });
    }
  }
  const sip = doc.sip as Record<string, unknown> | undefined;
  if (typeof sip?.username === 'string' && (sip.method ?? 'password') === 'password') {
    const realm = sip.realm;
    const same = (d: Record<string, unknown>) => {
      const s = d.sip as Record<string, unknown> | undefined;
      return typeof s?.username === 'string' && s.username.toLowerCase() === String(sip.username).toLowerCase() && s.realm === realm;
    };
    if (others().some(same)) errs.push({ 'sip.username': { unique: { message: 'SIP credentials already in use', cause: sip.username } } });
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

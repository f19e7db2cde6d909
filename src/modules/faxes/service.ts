import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import type { CompoundKey, Page } from '../../store/pages.js';
import { compileValidator, type JsonSchema } from '../../schema/validate.js';
import { newId } from '../../util/ids.js';
import { linearExec } from '../../util/linear-regex.js';
import { unixMsToGregorian } from '../../util/time.js';
import { getAccount, resellerIdOf } from '../accounts/service.js';
import { modbId, modbPage, type ModbQuery } from '../documents/modb.js';
import { deleteDoc, fromRow, getDoc, insertDoc, publicDoc, stripServerFields, updateDoc, type Row, type StoredDoc } from '../documents/store.js';
import { normalizeNumber } from '../numbers/converters.js';
import { publishNotification } from '../webhooks/notifications.js';
import { findUser } from '../users/service.js';
import type { EmittedEvent } from '../simulations/registry.js';

// Faxes as Kazoo's fax application keeps them: a fax to send is a job (its `faxes` database)
// that the fax server takes up (pending → processing → completed or failed, retried while it
// has retries left); once done it moves to the account's outbox. A fax received lands in the
// inbox. Those refused on their way in by e-mail leave an SMTP log. tel's fax server and
// switch are simulated: the `fax` simulation moves jobs and receives faxes.

/** The stored kinds: jobs waiting to be sent, the two folders, and the e-mail log. */
export const FAX_JOB = 'fax_job';
export const FOLDERS = { inbox: 'fax_inbox', outbox: 'fax_outbox' } as const;
export type Folder = keyof typeof FOLDERS;
export const SMTP_LOG = 'fax_smtp_log';

/** Kazoo's `faxes` schema: a fax to send. */
export const faxSchema: JsonSchema = {
  type: 'object',
  required: ['from_number', 'to_number'],
  properties: {
    attempts: { type: 'integer', default: 0, description: 'tries made so far' },
    document: {
      type: 'object',
      description: 'where the fax server fetches the document to send',
      properties: {
        content: { type: 'string', maxLength: 256 },
        content_type: { type: 'string' },
        host: { type: 'string' },
        method: { type: 'string', enum: ['get', 'post'], default: 'get' },
        referer: { type: 'string' },
        url: { type: 'string' },
      },
    },
    from_name: { type: 'string' },
    from_number: { type: 'string' },
    notifications: { type: 'object', properties: { email: { type: 'object' }, sms: { type: 'object' } } },
    retries: { type: 'integer', default: 1, description: 'tries the fax server makes before the job fails' },
    to_name: { type: 'string' },
    to_number: { type: 'string' },
  },
};
const validateFax = compileValidator(faxSchema);

/**
 * Queues a fax to send, as Kazoo's `PUT faxes/outgoing` does: it needs a document to fetch and a
 * number of the outside world (written as E.164). The job waits, `pending`, for the fax server.
 */
export function queueFax(core: Core, accountId: string, input: Record<string, unknown>): StoredDoc {
  const doc = validateFax(stripServerFields(input));
  const document = doc.document as Record<string, unknown> | undefined;
  if (typeof document?.url !== 'string' || document.url === '') {
    throw errors.invalidField('document.url', 'required', 'add document url or upload a document');
  }
  const to = normalizeNumber(core, accountId, String(doc.to_number));
  if (!/^\+\d{7,}$/.test(to)) throw errors.invalidField('document.to_number', 'required', 'add a valid number to send the fax to');
  doc.to_number = to;
  return transaction(core.db, () => {
    const reseller = resellerIdOf(core, getAccount(core, accountId));
    return insertDoc(core, FAX_JOB, accountId, doc, { job_status: 'pending', reseller_id: reseller }, newId());
  });
}

/** One page of the account's jobs (newest first unless told otherwise), with their status. */
export function jobsPage(core: Core, accountId: string, q: ModbQuery): Page<StoredDoc, CompoundKey> {
  return modbPage(core, FAX_JOB, accountId, q, true);
}

/** A job of the account, or the 404. */
export function getJob(core: Core, accountId: string, id: string): StoredDoc {
  return getDoc(core, FAX_JOB, accountId, id);
}

/** One page of a folder's faxes made in the window. */
export function folderPage(core: Core, folder: Folder, accountId: string, q: ModbQuery): Page<StoredDoc, CompoundKey> {
  return modbPage(core, FOLDERS[folder], accountId, q, true);
}

/** A fax of a folder, or the 404. */
export function getFax(core: Core, folder: Folder, accountId: string, id: string): StoredDoc {
  return getDoc(core, FOLDERS[folder], accountId, id);
}

/** Deletes a fax of a folder; answers it. */
export function deleteFax(core: Core, folder: Folder, accountId: string, id: string): StoredDoc {
  return transaction(core.db, () => {
    const d = getFax(core, folder, accountId, id);
    deleteDoc(core, d);
    return d;
  });
}

/** The pages a fax's document has (those sent or received; 1 for a fax not yet through). */
export function faxPages(d: StoredDoc): number {
  const result = (d.doc.tx_result ?? d.doc.rx_result ?? {}) as Record<string, unknown>;
  const pages = Number(result.pages_sent ?? result.pages_received ?? 1);
  return Number.isInteger(pages) && pages > 0 ? pages : 1;
}

/** A fax's document (its pages), unless it was deleted: the 404 then. */
export function faxDocument(core: Core, folder: Folder, accountId: string, id: string): StoredDoc {
  const d = getFax(core, folder, accountId, id);
  if (d.pvt.document_deleted === true) throw errors.badIdentifier(id);
  return d;
}

/** Deletes a fax's document, keeping the fax; answers the fax. */
export function deleteFaxDocument(core: Core, folder: Folder, accountId: string, id: string): StoredDoc {
  return transaction(core.db, () => {
    const d = faxDocument(core, folder, accountId, id);
    return updateDoc(core, d, d.doc, { ...d.pvt, document_deleted: true });
  });
}

/**
 * Sends a fax of a folder again as a new job (`resubmit` from the outbox, `forward` from the
 * inbox), what the request carries (a new `to_number`) laid over it, as Kazoo copies it. An
 * action the folder does not take is a 400.
 */
export function faxAction(core: Core, folder: Folder, accountId: string, id: string, action: unknown, input: Record<string, unknown>): StoredDoc {
  const wanted = folder === 'outbox' ? 'resubmit' : 'forward';
  if (action === undefined) throw errors.invalidField('action', 'required', 'action required');
  if (action !== wanted) throw errors.invalidField('action', 'enum', 'invalid action', { value: action, target: [wanted] });
  return transaction(core.db, () => {
    const d = getFax(core, folder, accountId, id);
    const { tx_result: _tx, rx_result: _rx, retry_after: _r, folder: _f, action: _a, ...kept } = { ...d.doc, ...stripServerFields(input) };
    const doc = validateFax({ ...kept, attempts: 0 });
    return insertDoc(core, FAX_JOB, accountId, doc, { job_status: 'pending', reseller_id: d.pvt.reseller_id }, newId());
  });
}

/** What the fax server's attempt gives: success, or why it failed. */
export interface FaxOutcome {
  jobId?: string;
  success: boolean;
  pages: number;
  error?: string;
}

/** The oldest job of the account waiting for the fax server. */
function nextPendingJob(core: Core, accountId: string): StoredDoc | undefined {
  const r = stmt(core.db, "SELECT * FROM docs WHERE account_id = ? AND kind = 'fax_job' AND json_extract(pvt, '$.job_status') = 'pending' ORDER BY created, id LIMIT 1").get(accountId) as
    | Row
    | undefined;
  return r ? fromRow(r) : undefined;
}

/**
 * The fax server takes up a job (the one named, else the oldest pending): `processing`, then
 * `completed` — or, when the attempt fails, `pending` again while it has retries left, else
 * `failed`. A job done moves to the outbox (`YYYYMM-<job id>`) and fires Kazoo's `outbound_fax`
 * or `outbound_fax_error` notification. Answers the states it went through and the notification.
 */
export function sendNextFax(core: Core, accountId: string, o: FaxOutcome): EmittedEvent[] {
  const job = o.jobId !== undefined ? getJob(core, accountId, o.jobId) : nextPendingJob(core, accountId);
  if (!job) throw errors.invalidField('job_id', 'required', 'No fax job of the account is pending');
  if (job.pvt.job_status !== 'pending') throw errors.invalidField('job_id', 'invalid', `The job is ${String(job.pvt.job_status)}, not pending`, { value: job.id });
  const now = Date.now();
  const attempts = Number(job.doc.attempts ?? 0) + 1;
  const txResult = o.success
    ? { success: true, result_code: 200, result_cause: 'NORMAL_CLEARING', result_text: 'OK', pages_sent: o.pages, time_elapsed: o.pages * 30, fax_speed: 14400, fax_bad_rows: 0, fax_error_correction: false, fax_receiver_id: '' }
    : { success: false, result_code: 0, result_cause: 'NO_ANSWER', result_text: o.error ?? 'No answer', error_message: o.error ?? 'No answer', pages_sent: 0, time_elapsed: 0 };
  const doc: Record<string, unknown> = { ...job.doc, attempts, tx_result: txResult };
  const retry = !o.success && Number(job.doc.retries ?? 1) - attempts >= 1;
  const status = o.success ? 'completed' : retry ? 'pending' : 'failed';
  const events: EmittedEvent[] = [
    { event: 'fax_job', id: job.id, status: 'processing' },
    { event: 'fax_job', id: job.id, status, attempts },
  ];
  if (retry) {
    updateDoc(core, job, doc, { ...job.pvt, job_status: 'pending' });
    return events;
  }
  deleteDoc(core, job);
  const outboxId = `${modbId(job.created).slice(0, 6)}-${job.id}`;
  const pvt: Record<string, unknown> = { ...job.pvt, job_status: status };
  if (o.success) pvt.delivered_date = unixMsToGregorian(now);
  insertDoc(core, FOLDERS.outbox, accountId, { ...doc, folder: 'outbox' }, pvt, outboxId);
  const fields: Record<string, unknown> = {
    fax_id: outboxId,
    fax_jobid: job.id,
    call_id: `${newId()}@${getAccount(core, accountId).realm}`,
    caller_id_name: doc.from_name ?? doc.from_number,
    caller_id_number: doc.from_number,
    callee_id_name: doc.to_name ?? doc.to_number,
    callee_id_number: doc.to_number,
    fax_timestamp: unixMsToGregorian(now),
  };
  if (doc.faxbox_id !== undefined) fields.faxbox_id = doc.faxbox_id;
  if (!o.success) fields.fax_error = txResult.result_text;
  const notification = publishNotification(core, accountId, o.success ? 'outbound_fax' : 'outbound_fax_error', fields);
  events.push({ event: 'notifications', ...notification });
  return events;
}

/** A fax arriving: from whom, to which number, into which fax box, and whether it came through. */
export interface IncomingFax {
  from: string;
  fromName?: string;
  to: string;
  faxboxId?: string;
  ownerId?: string;
  pages: number;
  success: boolean;
  error?: string;
}

/**
 * A fax received, as Kazoo's fax receiver stores it: a fax of the inbox (its fax box's and the
 * box owner's) and the `inbound_fax` notification; one that fails leaves only the
 * `inbound_fax_error` notification. Answers what happened.
 */
export function receiveFax(core: Core, accountId: string, f: IncomingFax): EmittedEvent[] {
  const account = getAccount(core, accountId);
  const box = f.faxboxId !== undefined ? getDoc(core, 'faxbox', accountId, f.faxboxId) : undefined;
  const ownerId = f.ownerId ?? (box?.doc.owner_id as string | undefined);
  const now = Date.now();
  const callId = `${newId()}@${account.realm}`;
  const fields: Record<string, unknown> = {
    from_realm: account.realm,
    from_user: f.from,
    to_realm: account.realm,
    to_user: f.to,
    call_id: callId,
    caller_id_name: f.fromName ?? f.from,
    caller_id_number: f.from,
    callee_id_name: (box?.doc.name as string | undefined) ?? f.to,
    callee_id_number: f.to,
    fax_timestamp: unixMsToGregorian(now),
  };
  if (box) fields.faxbox_id = box.id;
  if (ownerId) fields.owner_id = ownerId;
  const events: EmittedEvent[] = [];
  if (f.success) {
    const doc: Record<string, unknown> = {
      folder: 'inbox',
      from_name: f.fromName ?? f.from,
      from_number: f.from,
      to_number: f.to,
      call_id: callId,
      rx_result: { success: true, result_code: 200, result_text: 'OK', pages_received: f.pages, time_elapsed: f.pages * 30, fax_speed: 14400, fax_bad_rows: 0 },
    };
    if (box) doc.faxbox_id = box.id;
    if (ownerId) doc.owner_id = ownerId;
    const stored = insertDoc(core, FOLDERS.inbox, accountId, doc, {}, modbId(now));
    fields.fax_id = stored.id;
    events.push({ event: 'fax', folder: 'inbox', ...publicDoc(stored) });
  } else {
    fields.fax_error = f.error ?? 'Far end hung up';
  }
  const notification = publishNotification(core, accountId, f.success ? 'inbound_fax' : 'inbound_fax_error', fields);
  events.push({ event: 'notifications', ...notification });
  return events;
}

/**
 * Why a sender may not e-mail faxes to a fax box, as Kazoo's fax SMTP server decides it (undefined:
 * it may): the box's owner may, and those its permission list takes — an entry equal to the
 * address, or a pattern found in it (run on the linear-time engine). An empty list lets nobody but
 * the owner.
 */
function refusal(core: Core, accountId: string, box: StoredDoc, from: string): string | undefined {
  const address = from.toLowerCase();
  const allowed = ((box.doc.smtp_permission_list ?? []) as unknown[]).map(String);
  const owner = typeof box.doc.owner_id === 'string' ? findUser(core, accountId, box.doc.owner_id) : undefined;
  const ownerEmail = typeof owner?.doc.email === 'string' ? owner.doc.email.toLowerCase() : undefined;
  if (allowed.length === 0 && ownerEmail === undefined) return "faxbox permissions is empty and policy doesn't allow it";
  if (address === ownerEmail || allowed.some((entry) => entry.toLowerCase() === address || linearExec(entry, address) !== null)) return undefined;
  return `address ${from} is not allowed on faxbox ${box.id}`;
}

/**
 * A fax sent by e-mail to a fax box (Kazoo's fax SMTP server): from an allowed sender it becomes
 * a job from the box (its caller id and retries); a refused one leaves an SMTP log of why.
 */
export function emailFax(core: Core, accountId: string, faxboxId: string, from: string, toNumber: string): EmittedEvent[] {
  const box = getDoc(core, 'faxbox', accountId, faxboxId);
  // the address names the number at the box's domain: its own SMTP address's, else one made of its id
  const domain = String(box.doc.custom_smtp_email_address ?? `${box.id}.fax.${getAccount(core, accountId).realm}`).split('@').pop();
  const address = `${toNumber}@${domain}`;
  const refused = refusal(core, accountId, box, from);
  if (refused) {
    const log = {
      from,
      to: address,
      errors: [refused],
      faxbox_id: box.id,
      owner_id: box.doc.owner_id,
      account_id: accountId,
    };
    const stored = insertDoc(core, SMTP_LOG, accountId, log, {}, modbId());
    return [{ event: 'fax_smtp_log', ...publicDoc(stored) }];
  }
  const job = queueFax(core, accountId, {
    from_name: box.doc.caller_name ?? box.doc.name,
    from_number: box.doc.caller_id ?? from,
    to_name: toNumber,
    to_number: toNumber,
    retries: box.doc.retries ?? 3,
    faxbox_id: box.id,
    document: { url: `smtp:${from}`, content_type: 'application/pdf' },
  });
  return [{ event: 'fax_job', id: job.id, status: 'pending', faxbox_id: box.id }];
}

/** One page of the SMTP log written in the window. */
export function smtpLogPage(core: Core, accountId: string, q: ModbQuery): Page<StoredDoc, CompoundKey> {
  return modbPage(core, SMTP_LOG, accountId, q);
}

/** An entry of the SMTP log, or the 404. */
export function getSmtpLog(core: Core, accountId: string, id: string): StoredDoc {
  return getDoc(core, SMTP_LOG, accountId, id);
}

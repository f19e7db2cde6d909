import type { Core } from '../../core-type.js';
import type { CompoundKey, Page } from '../../store/pages.js';
import type { ModbQuery } from '../documents/modb.js';
import { dataObject } from '../../http/request.js';
import { boundedWindowOf, BOUNDED_QUERY, CREATED_KEY, listingReply, newestFirst, NEWEST_FIRST_QUERY } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import type { JsonSchema } from '../../schema/validate.js';
import { MAX_RANGE_SECONDS, unixMsToGregorian } from '../../util/time.js';
import { filterDoc, publicDoc, type StoredDoc } from '../documents/store.js';
import { blankFaxPdf } from './document.js';
import {
  deleteFax,
  deleteFaxDocument,
  faxAction,
  faxDocument,
  faxPages,
  faxSchema,
  folderPage,
  getFax,
  getJob,
  getSmtpLog,
  jobsPage,
  queueFax,
  smtpLogPage,
  type Folder,
} from './service.js';

const FAX: JsonSchema = {
  type: 'object',
  required: ['id', 'from_number', 'to_number'],
  properties: {
    id: { type: 'string' },
    from_number: { type: 'string' },
    to_number: { type: 'string' },
    folder: { type: 'string', enum: ['inbox', 'outbox'] },
    status: { type: 'string', description: "the job's: pending, processing, completed, failed" },
    attempts: { type: 'integer' },
    created: { type: 'integer', description: 'Gregorian seconds' },
  },
};
const FAXES: JsonSchema = { type: 'array', items: FAX };
const JOB_ROW: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'status', 'to', 'from', 'created'],
    properties: { id: { type: 'string' }, faxbox_id: { type: 'string' }, status: { type: 'string' }, to: { type: 'string' }, from: { type: 'string' }, attempts: { type: 'integer' }, created: { type: 'integer' } },
  },
};
const SMTP_ROW: JsonSchema = {
  type: 'array',
  items: { type: 'object', required: ['id', 'from', 'to', 'created'], properties: { id: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, error: { type: 'string' }, created: { type: 'integer' } } },
};
const ACTION: JsonSchema = {
  type: 'object',
  properties: { action: { type: 'string', enum: ['resubmit', 'forward'], description: 'resubmit (outbox) or forward (inbox): sent again as a new job' }, to_number: { type: 'string' } },
};

/** The status of a job or a fax that was one (Kazoo's `pvt_job_status`), where there is one. */
const statusOf = (d: StoredDoc) => (typeof d.pvt.job_status === 'string' ? { status: d.pvt.job_status } : {});

/** A job as `faxes/outgoing/{id}` answers it: the fax, with when it was made, delivered, and its status. */
function jobJson(d: StoredDoc): Record<string, unknown> {
  return { ...publicDoc(d), created: unixMsToGregorian(d.created), ...(d.pvt.delivered_date ? { delivered: d.pvt.delivered_date } : {}), ...statusOf(d) };
}

/** A fax of a folder as its listing answers it: the fax, with the view's status, numbers and creation. */
function folderRow(d: StoredDoc): Record<string, unknown> {
  return { ...publicDoc(d), ...statusOf(d), to: d.doc.to_number, from: d.doc.from_number, created: unixMsToGregorian(d.created) };
}

function jobRow(d: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = { id: d.id, status: d.pvt.job_status, to: d.doc.to_number, from: d.doc.from_number, attempts: d.doc.attempts, created: unixMsToGregorian(d.created) };
  if (d.doc.faxbox_id !== undefined) row.faxbox_id = d.doc.faxbox_id;
  return row;
}

function smtpRow(d: StoredDoc): Record<string, unknown> {
  return { id: d.id, from: d.doc.from, to: d.doc.to, error: (d.doc.errors as unknown[] | undefined)?.[0], created: unixMsToGregorian(d.created) };
}

/** A listing bounded in time (the faxes of a folder, the SMTP log). */
function bounded(path: string, response: JsonSchema, page: (core: Core, accountId: string, q: ModbQuery) => Page<StoredDoc, CompoundKey>, json: (d: StoredDoc) => unknown): RouteDef {
  return {
    method: 'GET',
    path,
    query: BOUNDED_QUERY,
    response,
    handler: (ctx, core) => {
      const window = boundedWindowOf(ctx.query, MAX_RANGE_SECONDS);
      const descending = newestFirst(ctx.query);
      return listingReply(ctx.query, (q) => page(core, ctx.params.account_id, { ...q, window, descending }), json, CREATED_KEY, { timeRange: true, whole: filterDoc });
    },
  };
}

const BASE = 'accounts/:account_id/faxes';

/** The routes of a folder: its faxes, one fax, sending it again, its document. */
function folderRoutes(folder: Folder, alias?: string): RouteDef[] {
  const base = `${BASE}/${alias ?? folder}`;
  const one = `${base}/:fax_id`;
  const list = bounded(base, FAXES, (core, account, q) => folderPage(core, folder, account, q), folderRow);
  const read: RouteDef = { method: 'GET', path: one, response: FAX, handler: (ctx, core) => ({ data: publicDoc(getFax(core, folder, ctx.params.account_id, ctx.params.fax_id)) }) };
  if (alias) return [list, read];
  return [
    list,
    read,
    {
      method: 'PUT',
      path: one,
      body: ACTION,
      response: FAX,
      handler: (ctx, core) => {
        const data = dataObject(ctx);
        return { data: publicDoc(faxAction(core, folder, ctx.params.account_id, ctx.params.fax_id, data.action ?? ctx.envelope.action, data)) };
      },
    },
    {
      method: 'DELETE',
      path: one,
      response: FAX,
      handler: (ctx, core) => ({ data: { ...publicDoc(deleteFax(core, folder, ctx.params.account_id, ctx.params.fax_id)), _read_only: { deleted: true } } }),
    },
    {
      method: 'GET',
      path: `${one}/attachment`,
      raw: 'application/pdf',
      handler: (ctx, core) => {
        const d = faxDocument(core, folder, ctx.params.account_id, ctx.params.fax_id);
        const at = new Date(d.created).toISOString().slice(0, 19).replace('T', '_');
        const disposition = ctx.query.get('disposition') === 'inline' ? 'inline' : 'attachment';
        return { file: blankFaxPdf(faxPages(d)), headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': `${disposition}; filename=fax_document_${at}.pdf` } };
      },
    },
    {
      method: 'DELETE',
      path: `${one}/attachment`,
      response: FAX,
      handler: (ctx, core) => ({ data: publicDoc(deleteFaxDocument(core, folder, ctx.params.account_id, ctx.params.fax_id)) }),
    },
  ];
}

/** Queues a fax to send (`PUT faxes`, `PUT faxes/outgoing`): 202, as Kazoo answers while it fetches the document. */
const queue = (path: string): RouteDef => ({
  method: 'PUT',
  path,
  body: faxSchema,
  response: FAX,
  errors: [202],
  handler: (ctx, core) => {
    const d = queueFax(core, ctx.params.account_id, dataObject(ctx));
    return { status: 202, data: { ...publicDoc(d), ...statusOf(d) } };
  },
});

export const faxRoutes: RouteDef[] = [
  queue(BASE),
  queue(`${BASE}/outgoing`),
  {
    method: 'GET',
    path: `${BASE}/outgoing`,
    query: NEWEST_FIRST_QUERY,
    response: JOB_ROW,
    handler: (ctx, core) => {
      const descending = newestFirst(ctx.query);
      return listingReply(ctx.query, (q) => jobsPage(core, ctx.params.account_id, { ...q, descending }), jobRow, CREATED_KEY, { whole: filterDoc });
    },
  },
  { method: 'GET', path: `${BASE}/outgoing/:job_id`, response: FAX, handler: (ctx, core) => ({ data: jobJson(getJob(core, ctx.params.account_id, ctx.params.job_id)) }) },
  ...folderRoutes('inbox'),
  ...folderRoutes('inbox', 'incoming'),
  ...folderRoutes('outbox'),
  bounded(`${BASE}/smtplog`, SMTP_ROW, smtpLogPage, smtpRow),
  { method: 'GET', path: `${BASE}/smtplog/:attempt_id`, response: { type: 'object' }, handler: (ctx, core) => ({ data: publicDoc(getSmtpLog(core, ctx.params.account_id, ctx.params.attempt_id)) }) },
];

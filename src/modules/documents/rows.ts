import type { Core } from '../../core-type.js';
import type { JsonSchema } from '../../schema/validate.js';
import { folderCounts } from '../voicemail/store.js';
import { privateFields, type StoredDoc } from './store.js';
import { newId } from '../../util/ids.js';

// Listing rows as Kazoo's CouchDB views emit them (the `crossbar_listing` map functions of
// kazoo_apps' account views and kazoo_media's media view), with what the kind's crossbar module
// adds to them. A view's `undefined` values are not in its JSON; `x || default` is kept as is.

type Doc = Record<string, unknown>;

/** The row without its undefined values (a view's JSON has none). */
export function viewRow(fields: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) row[k] = v;
  return row;
}

/** JavaScript's `value || fallback`, as the views write defaults. */
function or(value: unknown, fallback: unknown): unknown {
  return value ? value : fallback;
}

function obj(v: unknown): Doc {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {};
}

/** `devices/crossbar_listing`: a SIP username, a MAC address (`''`) and a device type (`sip_device`) always. */
export function deviceRow(d: StoredDoc): Record<string, unknown> {
  const doc = d.doc;
  return viewRow({
    name: doc.name,
    username: obj(doc.sip).username,
    mac_address: or(doc.mac_address, ''),
    owner_id: doc.owner_id,
    enabled: doc.enabled,
    device_type: or(doc.device_type, 'sip_device'),
    mobile: doc.mobile,
    call_recording: doc.call_recording,
    flags: or(doc.flags, []),
  });
}

/** What a device row has beyond the device's own fields. */
export const DEVICE_ROW = {
  fields: ['name', 'mac_address', 'owner_id', 'enabled', 'device_type', 'mobile', 'call_recording', 'flags'],
  extra: { username: { type: 'string', description: "the device's SIP username" } } as Record<string, JsonSchema>,
};

/** The modules a callflow's tree runs, each once, in the order met (a node whose data skips it is not counted). */
function flowModules(flow: unknown, into: string[] = []): string[] {
  const node = obj(flow);
  const data = node.data;
  if (node.module && data && obj(data).skip_module !== true && !into.includes(String(node.module))) into.push(String(node.module));
  for (const child of Object.values(obj(node.children))) flowModules(child, into);
  return into;
}

/** `callflows/crossbar_listing`: the flow's modules and `featurecode` (`false` when it has none). */
export function callflowRow(d: StoredDoc): Record<string, unknown> {
  const doc = d.doc;
  return viewRow({
    name: doc.name,
    type: doc.type,
    numbers: doc.numbers,
    patterns: doc.patterns,
    featurecode: or(doc.featurecode, false),
    owner_id: doc.owner_id,
    group_id: doc.group_id,
    modules: doc.flow ? flowModules(doc.flow) : [],
    flags: or(doc.flags, []),
  });
}

export const CALLFLOW_ROW = {
  fields: ['name', 'numbers', 'patterns', 'featurecode', 'flags'],
  extra: {
    type: { type: 'string', description: "the callflow's type (SmartPBX's `mainUserCallflow`, `baseGroup`, …)" },
    owner_id: { type: 'string' },
    group_id: { type: 'string' },
    modules: { type: 'array', items: { type: 'string' }, description: 'the modules its flow runs, each once' },
    featurecode: { anyOf: [{ type: 'object' }, { const: false }], description: 'its feature code, `false` when it has none' },
  } as Record<string, JsonSchema>,
};

/**
 * `vmboxes/crossbar_listing`, with `cb_vmboxes`' counts (`load_vmbox_summary/2`, one statement a
 * page): `messages` is the box's new and saved messages; a box that holds any message also tells
 * `folders.new` and `folders.saved`.
 */
export function vmboxRows(core: Core, docs: StoredDoc[]): Record<string, unknown>[] {
  const counts = docs.length > 0 ? folderCounts(core, docs[0].accountId, docs.map((d) => d.id)) : new Map();
  return docs.map((d) => {
    const doc = d.doc;
    const legacy = Array.isArray(doc.messages) ? doc.messages.length : 0;
    const row = viewRow({ id: d.id, name: doc.name, mailbox: doc.mailbox, owner_id: doc.owner_id, messages: legacy, flags: or(doc.flags, []) });
    const box = counts.get(d.id);
    if (box) {
      row.messages = legacy + box.new + box.saved;
      row.folders = { new: box.new, saved: box.saved };
    }
    return row;
  });
}

export const VMBOX_ROW = {
  fields: ['name', 'mailbox', 'owner_id', 'flags'],
  extra: {
    messages: { type: 'integer', minimum: 0, description: 'its new and saved messages' },
    folders: {
      type: 'object',
      description: 'its new and saved messages, when it holds any message',
      properties: { new: { type: 'integer', minimum: 0 }, saved: { type: 'integer', minimum: 0 } },
    },
  } as Record<string, JsonSchema>,
};

/** Kazoo's default domain of fax boxes' SMTP addresses (cb_faxboxes, `fax` `default_smtp_domain`). */
const DEFAULT_FAX_SMTP_DOMAIN = 'fax.kazoo.io';

/** A new fax box's private SMTP address, as cb_faxboxes makes it: 8 hex digits at the `fax` category's `default_smtp_domain`. */
export function faxboxPrivate(core: Core): Record<string, unknown> {
  const domain: unknown = core.config.value('fax', 'default_smtp_domain', DEFAULT_FAX_SMTP_DOMAIN);
  return { pvt_smtp_email_address: `${newId().slice(0, 8)}.${typeof domain === 'string' && domain !== '' ? domain : DEFAULT_FAX_SMTP_DOMAIN}` };
}

/** cb_faxboxes `remove_private_fields/1`: a client sends the SMTP address back with the document, but cannot set it. */
export function prepareFaxbox(_core: Core, _accountId: string, doc: Record<string, unknown>): void {
  delete doc.smtp_email_address;
}

/** What cb_faxboxes copies into its answers of a fax box (`leak_private_fields/1`): its SMTP address. */
export function faxboxLeak(d: StoredDoc): Record<string, unknown> {
  const address = d.pvt.pvt_smtp_email_address;
  return typeof address === 'string' ? { smtp_email_address: address } : {};
}

/**
 * Fax boxes' listing rows: cb_faxboxes lists whole documents (`include_docs`) with their SMTP
 * address (`normalize_view_results/2`); the private fields its rows carry besides are not shown.
 * The page's private fields are read in one statement (a page is read without them).
 */
export function faxboxRows(core: Core, docs: StoredDoc[]): Record<string, unknown>[] {
  const pvt = privateFields(core, docs.map((d) => d.id));
  return docs.map((d) => ({ ...d.doc, id: d.id, ...faxboxLeak({ ...d, pvt: pvt.get(d.id) ?? {} }) }));
}

export const FAXBOX_LEAK = { smtp_email_address: { type: 'string', description: 'the address that faxes by email (`{8 hex}.{domain}`)' } } as Record<string, JsonSchema>;

/** kazoo_media's `media/crossbar_listing`: the language in lower case (`''` when none) and whether it is a prompt. */
export function mediaRow(d: StoredDoc): Record<string, unknown> {
  const doc = d.doc;
  return viewRow({
    name: doc.name,
    media_type: doc.media_type,
    media_source: doc.media_source,
    language: String(or(doc.language, '')).toLowerCase(),
    is_prompt: Boolean(doc.prompt_id),
  });
}

export const MEDIA_ROW = {
  fields: ['name', 'media_source', 'language'],
  extra: {
    media_type: { type: 'string' },
    is_prompt: { type: 'boolean', description: 'the media is a prompt (it has a `prompt_id`)' },
  } as Record<string, JsonSchema>,
};

import { documentService, type DocumentKind } from './crud.js';
import { checkCallflow, checkDevice, checkFaxbox, checkVmbox, prepareCallflow } from './checks.js';
import { callflowSchema } from './schemas/callflows.js';
import { CALLFLOW_METADATA_FIELDS, callflowMetadata } from './callflow-metadata.js';
import { deviceSchema } from './schemas/devices.js';
import { faxboxSchema } from './schemas/faxboxes.js';
import { mediaSchema } from './schemas/media.js';
import { vmboxSchema } from './schemas/vmboxes.js';
import { CALLFLOW_ROW, callflowRow, DEVICE_ROW, deviceRow, FAXBOX_LEAK, faxboxLeak, faxboxPrivate, faxboxRows, prepareFaxbox, MEDIA_ROW, mediaRow, VMBOX_ROW, vmboxRows } from './rows.js';

/** Devices: SIP phones and softphones of an account. */
export const devices = documentService({
  kind: 'device',
  endpoint: 'devices',
  summary: DEVICE_ROW.fields,
  row: deviceRow,
  rowFields: DEVICE_ROW.extra,
  schema: deviceSchema,
  check: checkDevice,
});

/** Callflows: number-to-action routing documents. */
export const callflows = documentService({
  kind: 'callflow',
  endpoint: 'callflows',
  summary: CALLFLOW_ROW.fields,
  row: callflowRow,
  rowFields: CALLFLOW_ROW.extra,
  schema: callflowSchema,
  prepare: prepareCallflow,
  check: checkCallflow,
  readExtra: callflowMetadata,
  readFields: CALLFLOW_METADATA_FIELDS,
});

/** Voicemail boxes. */
export const vmboxes = documentService({
  kind: 'vmbox',
  endpoint: 'vmboxes',
  summary: VMBOX_ROW.fields,
  rows: vmboxRows,
  rowFields: VMBOX_ROW.extra,
  schema: vmboxSchema,
  check: checkVmbox,
});

/** Fax boxes. */
export const faxboxes = documentService({
  kind: 'faxbox',
  endpoint: 'faxboxes',
  summary: ['name', 'caller_name', 'caller_id'],
  rows: faxboxRows,
  rowFields: FAXBOX_LEAK,
  prepare: prepareFaxbox,
  newPrivate: faxboxPrivate,
  leak: faxboxLeak,
  leakFields: FAXBOX_LEAK,
  schema: faxboxSchema,
  check: checkFaxbox,
});

/** Media (prompts, music on hold) metadata. */
export const media = documentService({
  kind: 'media',
  endpoint: 'media',
  summary: MEDIA_ROW.fields,
  row: mediaRow,
  rowFields: MEDIA_ROW.extra,
  schema: mediaSchema,
});

/** Every plain document kind, for routes and the CLI. */
export const DOCUMENT_KINDS = [devices, callflows, vmboxes, faxboxes, media];
export type { DocumentKind };

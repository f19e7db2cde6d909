import { documentService, type DocumentKind } from './crud.js';
import { PRINTABLE } from '../../schema/validate.js';

const ui = { ui_metadata: { type: 'object' } };

/** Devices: SIP phones and softphones of an account. */
export const devices = documentService({
  kind: 'device',
  endpoint: 'devices',
  summary: ['name', 'device_type', 'owner_id', 'enabled', 'mac_address'],
  schema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
      device_type: { type: 'string', default: 'sip_device' },
      owner_id: { type: 'string' },
      enabled: { type: 'boolean', default: true },
      mac_address: { type: 'string' },
      sip: { type: 'object' },
      ...ui,
    },
  },
});

/** Callflows: number-to-action routing documents. */
export const callflows = documentService({
  kind: 'callflow',
  endpoint: 'callflows',
  summary: ['name', 'numbers', 'patterns', 'featurecode'],
  schema: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 128, format: PRINTABLE },
      numbers: { type: 'array', items: { type: 'string' }, default: [] },
      patterns: { type: 'array', items: { type: 'string', format: 'regex' }, default: [] },
      flow: { type: 'object', default: {} },
      ...ui,
    },
  },
});

/** Voicemail boxes. */
export const vmboxes = documentService({
  kind: 'vmbox',
  endpoint: 'vmboxes',
  summary: ['name', 'mailbox', 'owner_id'],
  schema: {
    type: 'object',
    required: ['name', 'mailbox'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
      mailbox: { type: 'string', minLength: 1, maxLength: 30 },
      owner_id: { type: 'string' },
      pin: { type: 'string' },
      ...ui,
    },
  },
});

/** Fax boxes. */
export const faxboxes = documentService({
  kind: 'faxbox',
  endpoint: 'faxboxes',
  summary: ['name', 'caller_name', 'caller_id'],
  schema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
      caller_name: { type: 'string' },
      caller_id: { type: 'string' },
      ...ui,
    },
  },
});

/** Media (prompts, music on hold) metadata. */
export const media = documentService({
  kind: 'media',
  endpoint: 'media',
  summary: ['name', 'media_source', 'language'],
  schema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
      media_source: { type: 'string', enum: ['recording', 'upload', 'tts'], default: 'upload' },
      language: { type: 'string' },
      ...ui,
    },
  },
});

/** Every plain document kind, for routes and the CLI. */
export const DOCUMENT_KINDS = [devices, callflows, vmboxes, faxboxes, media];
export type { DocumentKind };

import { defineSchema, ref } from '../../schema/registry.js';

// Where Kazoo keeps attachments (call recordings, voicemails, faxes, media) outside its database:
// Kazoo's `storage` schemas. tel keeps the documents; its own files stay in its database file.

const noSpaces = '^[^\\s]*$';

/** A handler's settings and its name. */
const handler = (name: string, settings: Record<string, unknown>) => ({
  type: 'object',
  required: ['handler', 'settings'],
  properties: { handler: { type: 'string', enum: [name] }, settings: { type: 'object', ...settings } },
});

export const storageAws = defineSchema(
  'storage.attachment.aws',
  handler('s3', {
    required: ['bucket', 'key', 'secret'],
    properties: {
      bucket: { type: 'string', minLength: 6, maxLength: 63, pattern: noSpaces },
      bucket_access_method: { type: 'string', enum: ['auto', 'vhost', 'path'] },
      bucket_after_host: { type: 'boolean' },
      host: { type: 'string', minLength: 1, pattern: noSpaces },
      key: { type: 'string', minLength: 1, maxLength: 128, pattern: noSpaces },
      port: { type: 'integer' },
      region: { type: 'string', minLength: 1, pattern: noSpaces },
      scheme: { type: 'string', enum: ['http', 'https'] },
      secret: { type: 'string', minLength: 1, maxLength: 128, pattern: noSpaces },
    },
  }),
);

export const storageAzure = defineSchema(
  'storage.attachment.azure',
  handler('azure', {
    required: ['account', 'container', 'key'],
    properties: { account: { type: 'string' }, container: { type: 'string' }, key: { type: 'string' } },
  }),
);

/** An OAuth document's id, for the handlers that log in with one. */
const oauthDoc = { type: 'string', minLength: 1 };

export const storageDropbox = defineSchema(
  'storage.attachment.dropbox',
  handler('dropbox', { required: ['oauth_doc_id'], properties: { oauth_doc_id: oauthDoc } }),
);

export const storageGoogleDrive = defineSchema(
  'storage.attachment.google_drive',
  handler('google_drive', { required: ['oauth_doc_id'], properties: { folder_id: { type: 'string' }, oauth_doc_id: oauthDoc } }),
);

export const storageGoogleStorage = defineSchema(
  'storage.attachment.google_storage',
  handler('google_storage', {
    oneOf: [
      { properties: { oauth_app_id: { type: 'string' } }, required: ['oauth_app_id'] },
      { properties: { oauth_doc_id: { type: 'string' } }, required: ['oauth_doc_id'] },
    ],
  }),
);

export const storageHttp = defineSchema(
  'storage.attachment.http',
  handler('http', {
    required: ['url'],
    properties: {
      base64_encode_data: { type: 'boolean', default: false },
      send_multipart: { type: 'boolean' },
      url: { type: 'string', 'x-client-url': true },
      verb: { type: 'string', enum: ['post', 'put'], default: 'put' },
    },
  }),
);

export const storageOnedrive = defineSchema(
  'storage.attachment.onedrive',
  handler('onedrive', { required: ['oauth_doc_id'], properties: { oauth_doc_id: oauthDoc } }),
);

/** How an attachment's name is made: an argument, a constant, a document's field, or a group of those. */
export const storageAttachmentsField = defineSchema('storage.attachments.field', {
  oneOf: [
    { type: 'object', properties: { arg: { type: 'string', enum: ['account_id', 'db', 'id', 'attachment'] } }, additionalProperties: false },
    { type: 'object', properties: { const: { type: 'string' } }, additionalProperties: false },
    { type: 'object', properties: { field: { type: 'string' } }, additionalProperties: false },
    { type: 'object', properties: { group: { type: 'array', items: { $ref: 'storage.attachments.field' } } }, additionalProperties: false },
  ],
});

export const storageAttachments = defineSchema('storage.attachments', {
  type: 'object',
  patternProperties: {
    '^[a-z0-9]{32}$': {
      type: 'object',
      properties: {
        name: { type: 'string' },
        settings: {
          type: 'object',
          properties: {
            field_list: { type: 'array', items: ref(storageAttachmentsField) },
            field_separator: { type: 'string' },
            folder_base_path: { type: 'string' },
          },
        },
      },
      oneOf: [ref(storageAws), ref(storageGoogleDrive), ref(storageGoogleStorage), ref(storageAzure), ref(storageOnedrive), ref(storageDropbox), ref(storageHttp)],
    },
  },
  additionalProperties: false,
});

export const storageConnectionCouchdb = defineSchema('storage.connection.couchdb', {
  type: 'object',
  required: ['driver', 'settings'],
  properties: {
    driver: { enum: ['kazoo_couch'] },
    name: { type: 'string' },
    settings: {
      type: 'object',
      required: ['ip', 'port'],
      properties: {
        connect_options: { type: 'object', properties: { keepalive: { type: 'boolean' } } },
        connect_timeout: { type: 'integer' },
        credentials: {
          type: 'object',
          required: ['username', 'password'],
          properties: { password: { type: 'integer' }, username: { type: 'string' } },
        },
        ip: { type: 'string' },
        max_pipeline_size: { type: 'integer' },
        max_sessions: { type: 'integer' },
        pool: { type: 'object', required: ['name', 'size'], properties: { name: { type: 'string' }, size: { type: 'integer' } } },
        port: { type: 'integer' },
      },
    },
  },
});

export const storageConnections = defineSchema('storage.connections', {
  type: 'object',
  patternProperties: {
    '^([a-z,0-9]){32}$': { oneOf: [ref(storageConnectionCouchdb)] },
    local: { type: 'object' },
  },
});

export const storagePlanDatabaseAttachment = defineSchema('storage.plan.database.attachment', {
  type: 'object',
  properties: {
    handler: { type: 'string' },
    params: { type: 'object', properties: { folder_path: { type: 'string' } } },
    stub: { type: 'boolean' },
  },
});

export const storagePlanDatabaseDocument = defineSchema('storage.plan.database.document', {
  type: 'object',
  properties: { attachments: ref(storagePlanDatabaseAttachment), connection: { type: 'string' } },
});

export const storagePlanDatabase = defineSchema('storage.plan.database', {
  type: 'object',
  properties: {
    attachments: ref(storagePlanDatabaseAttachment),
    connection: { type: 'string' },
    database: { type: 'object', properties: { create_options: { type: 'object' }, names: { type: 'array', items: { type: 'string' } } } },
    types: {
      type: 'object',
      properties: {
        call_recording: ref(storagePlanDatabaseDocument),
        fax: ref(storagePlanDatabaseDocument),
        function: ref(storagePlanDatabaseDocument),
        mailbox_message: ref(storagePlanDatabaseDocument),
        media: ref(storagePlanDatabaseDocument),
      },
    },
  },
  additionalProperties: false,
});

export const storagePlan = defineSchema('storage.plan', {
  type: 'object',
  properties: {
    account: ref(storagePlanDatabase),
    aggregate: ref(storagePlanDatabase),
    modb: ref(storagePlanDatabase),
    system: ref(storagePlanDatabase),
  },
  additionalProperties: false,
});

/** An account's storage settings, or a reseller's storage plan: Kazoo's `storage` schema. */
export const storageSchema = defineSchema('storage', {
  type: 'object',
  properties: {
    attachments: ref(storageAttachments),
    connections: ref(storageConnections),
    id: { type: 'string' },
    plan: ref(storagePlan),
  },
  patternProperties: {
    '^_': { oneOf: [{ type: 'boolean' }, { type: 'integer' }, { type: 'object' }, { type: 'string' }] },
    '^pvt_': { oneOf: [{ type: 'boolean' }, { type: 'integer' }, { type: 'string' }] },
  },
});

import { compileValidator, PRINTABLE } from '../../schema/validate.js';

/** Who of an account may use an app (Kazoo's `allowed_users`). */
export const ALLOWED_USERS = ['all', 'admins', 'specific'] as const;
export type AllowedUsers = (typeof ALLOWED_USERS)[number];

/** The language every app must describe itself in: Monster UI falls back to it. */
export const DEFAULT_LANGUAGE = 'en-US';

/** The users an app is given to when `allowed_users` is `specific`: `{id}` objects (a bare id is accepted). */
const usersSchema = {
  type: 'array',
  items: {
    anyOf: [
      { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } },
      { type: 'string', minLength: 1, maxLength: 64 },
    ],
  },
  maxItems: 10_000,
  default: [],
};

/** An app of the catalogue, as `tel apps add` stores it (Kazoo's app document, less its files). */
export const appSchema = {
  type: 'object',
  required: ['name', 'i18n'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' },
    i18n: {
      type: 'object',
      required: [DEFAULT_LANGUAGE],
      additionalProperties: {
        type: 'object',
        required: ['label'],
        properties: {
          label: { type: 'string', minLength: 1, maxLength: 128, format: PRINTABLE },
          description: { type: 'string', maxLength: 4096 },
          extended_description: { type: 'string', maxLength: 16384 },
          features: { type: 'array', items: { type: 'string', maxLength: 1024 } },
        },
      },
    },
    tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, default: [] },
    api_url: { type: 'string', format: 'http-uri' },
    source_url: { type: 'string', format: 'http-uri' },
    allowed_users: { type: 'string', enum: [...ALLOWED_USERS], default: 'all' },
    users: usersSchema,
    masqueradable: { type: 'boolean', default: true },
    phase: { type: 'string', enum: ['alpha', 'beta', 'gold'] },
    extends: { type: 'array', items: { type: 'string', minLength: 1 } },
  },
};

/** Validates a catalogue app: fills the defaults, or throws the Kazoo-shaped 400. */
export const validateApp = compileValidator(appSchema);

/** An app installed on an account: who of it may use the app (the body of PUT/POST `apps_store/{id}`). */
export const permissionsSchema = {
  type: 'object',
  properties: {
    // Kazoo reads a missing value as `specific`: nobody until users are listed.
    allowed_users: { type: 'string', enum: [...ALLOWED_USERS], default: 'specific' },
    users: usersSchema,
    ui_metadata: { type: 'object' },
  },
};

/** Validates an installation's permissions: fills the defaults, or throws the Kazoo-shaped 400. */
export const validatePermissions = compileValidator(permissionsSchema);

/** The apps a reseller keeps from an account (`POST …/apps_store/blacklist`): their ids. */
export const blacklistSchema = {
  type: 'object',
  required: ['blacklist'],
  properties: {
    blacklist: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 10_000, uniqueItems: true },
    ui_metadata: { type: 'object' },
  },
};

/** Validates a blacklist: the list of app ids, or throws the Kazoo-shaped 400. */
export const validateBlacklist = compileValidator<{ blacklist: string[] }>(blacklistSchema);

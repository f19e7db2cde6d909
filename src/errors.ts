/** Kazoo-shaped validation details: `{ "<dotted.path>": { "<rule>": { message, target?, value? } } }`. */
export type ValidationErrors = Record<string, Record<string, Record<string, unknown>>>;

/**
 * The one exception every layer throws: its status and Kazoo's message name it as the API answers
 * it (the HTTP server turns it into the error envelope, in one place); the CLI tells it in one
 * sentence (`describeError`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** the envelope's short `message` (Kazoo's error name) */
    readonly kazooMessage: string,
    readonly data: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${kazooMessage}`);
  }
}

/** What stops the database file from being written, as SQLite reports it (see `storageFaultOf`). */
export type StorageFault = 'full' | 'io_error' | 'read_only' | 'cannot_open';

/** The sentence each storage fault is told with, by the API (`data.cause`), the CLI and the log. */
export const STORAGE_CAUSES: Readonly<Record<StorageFault, string>> = {
  full: 'the disk holding the database is full: nothing can be written until space is freed',
  io_error: 'the database file cannot be read or written (an I/O error)',
  read_only: 'the database file cannot be written (it or its file system is read-only)',
  cannot_open: 'the database file cannot be opened any more (was it moved or removed?)',
};

/** Seconds a client is told to wait before trying again: space comes back by someone's hand. */
const STORAGE_RETRY_AFTER_S = { full: 30, unavailable: 10 };

/**
 * The storage fault a SQLite error stands for, or undefined for any other error. node:sqlite's
 * `errcode` is SQLite's extended result code, whose low byte is the primary one: SQLITE_READONLY
 * (8), SQLITE_IOERR (10), SQLITE_FULL (13), SQLITE_CANTOPEN (14).
 */
export function storageFaultOf(err: unknown): StorageFault | undefined {
  const e = err as { code?: string; errcode?: number } | undefined;
  if (e?.code !== 'ERR_SQLITE_ERROR' || typeof e.errcode !== 'number') return undefined;
  switch (e.errcode & 0xff) {
    case 13:
      return 'full';
    case 10:
      return 'io_error';
    case 8:
      return 'read_only';
    case 14:
      return 'cannot_open';
    default:
      return undefined;
  }
}

/** The answer for a storage fault: 507 for a full disk, else 503. */
export function storageError(fault: StorageFault): ApiError {
  return fault === 'full' ? errors.datastoreFull() : errors.datastoreUnavailable(fault);
}

/** Every error tel can answer, declared once. */
export const errors = {
  /** 401: missing, unknown or expired token, or failed login (the same body for all). */
  invalidCredentials: () =>
    new ApiError(401, 'invalid_credentials', { message: 'invalid credentials' }),

  /** 403: the token may not act here; `cause` explains why when we can say it. */
  forbidden: (cause?: string, extra: Record<string, unknown> = {}) =>
    new ApiError(403, 'forbidden', { ...(cause ? { cause } : {}), message: 'forbidden', ...extra }),

  /** 403 from token restrictions; `extra` says which step failed. */
  restricted: (extra: Record<string, unknown> = {}) =>
    new ApiError(403, 'forbidden', {
      cause: 'access denied by token restrictions',
      message: 'forbidden',
      ...extra,
    }),

  /** 404: a document or account that does not exist. */
  badIdentifier: (id: string) =>
    new ApiError(404, 'bad_identifier', { cause: id, message: 'bad identifier' }),

  /** 404: a key a module looks up that is not there (Kazoo's `crossbar_util:response_bad_identifier/2`: `data` lists it). */
  badIdentifierList: (id: string) => new ApiError(404, 'bad identifier', [id]),

  /** 404: no such endpoint or path. */
  notFound: () => new ApiError(404, 'not_found', { message: 'not found' }),

  /** 404 in the words a Kazoo module answers it (`could not find cdr with supplied id`, `utc_offset must be a number`). */
  notFoundAs: (message: string, cause?: string) =>
    new ApiError(404, message, { message, ...(cause !== undefined ? { cause } : {}) }),

  /** 405 with the `Allow` header listing what the path accepts. */
  methodNotAllowed: (allowed: string[]) =>
    new ApiError(405, 'invalid_method', { message: 'method not allowed' }, { Allow: allowed.join(', ') }),

  /** 400: the request body is not JSON (or not an object). */
  invalidJson: (reason: string) =>
    new ApiError(400, 'invalid json', { json: { invalid: { message: reason, target: 'body' } } }),

  /**
   * 400: a JSON body whose envelope is not `{data: object|array, …}`. The rule failed is Kazoo's
   * (its envelope schema, `api_util:is_valid_request_envelope/2`); the message is the one
   * `api_util:set_request_data_in_context/4` gives it, which tel's contract names.
   */
  invalidEnvelope: (details: ValidationErrors) => new ApiError(400, 'invalid request envelope', details),

  /** 400: the request body nests objects and arrays deeper than tel reads. */
  tooDeep: (maxDepth: number) =>
    new ApiError(400, 'invalid json', {
      json: { too_deep: { message: `JSON must not nest objects and arrays more than ${maxDepth} levels deep`, target: maxDepth } },
    }),

  /** 400: the request body holds more members (keys and items, in all) than tel reads in one document. */
  tooManyMembers: (maxMembers: number) =>
    new ApiError(400, 'invalid json', {
      json: {
        too_many_members: { message: `JSON must not hold more than ${maxMembers} members (an object's keys and an array's items, in all)`, target: maxMembers },
      },
    }),

  /** 400: the request body holds a string longer than tel reads in a document. */
  tooLongString: (maxBytes: number) =>
    new ApiError(400, 'invalid json', {
      json: { too_long_string: { message: `JSON strings must not be longer than ${maxBytes} bytes`, target: maxBytes } },
    }),

  /** 400: schema or rule failures. */
  validation: (details: ValidationErrors) => new ApiError(400, 'validation error', details),

  /** 400 for one field and rule. */
  invalidField: (field: string, rule: string, message: string, more: Record<string, unknown> = {}) =>
    new ApiError(400, 'validation error', { [field]: { [rule]: { message, ...more } } }),

  /** 409: the document changed between its read and its write (another writer got there first). */
  conflict: () => new ApiError(409, 'datastore_conflict', { message: 'conflicting documents' }),

  /**
   * 412: a precondition of the request does not hold: the revision sent in `If-Match` is not the
   * stored one, or a creation (PUT) was sent an `If-Match` (cowboy_rest answers these 412s; Kazoo
   * sends them without a body).
   */
  preconditionFailed: (cause: string) => new ApiError(412, 'precondition_failed', { cause, message: 'precondition failed' }),

  /** 413: the body is larger than the documented maximum. */
  tooLarge: (maxBytes: number) =>
    new ApiError(413, 'validation error', {
      body: { maxSize: { message: `Body must not be more than ${maxBytes} bytes`, target: maxBytes } },
    }),

  /** 429: too many failed logins from this address or for this account; retry after `seconds`. */
  tooManyLogins: (seconds: number) =>
    new ApiError(
      429,
      'too_many_requests',
      { cause: 'too many failed logins', message: 'too many requests', retry_after: seconds },
      { 'Retry-After': String(seconds) },
    ),

  /** 402: a change that incurs charges needs `accept_charges`. */
  acceptCharges: (charges: unknown) => new ApiError(402, 'accept charges', charges),

  /** 400: the request is not one HTTP can read (request line, header, method). */
  badRequest: (cause: string) => new ApiError(400, 'bad_request', { cause, message: 'bad request' }),

  /** 400 with Kazoo's sentence as the message and the details it gives, if any (`crossbar_util:response_400`). */
  refused: (message: string, data: Record<string, unknown> = {}) => new ApiError(400, message, data),

  /** 500: Kazoo's answer when no rate prices a number (its rater answered nothing). */
  noRate: () => new ApiError(500, 'No rate found for this number', { message: 'No rate found for this number' }),

  /** 408: the request did not arrive in time. */
  requestTimeout: () => new ApiError(408, 'request_timeout', { message: 'request timeout' }),

  /** 431: the request's headers are larger than node:http reads. */
  headersTooLarge: () =>
    new ApiError(431, 'request_header_fields_too_large', { message: 'request header fields too large' }),

  /** 400: `PUT …/apps_store/{app_id}` for an app the account already installed (Kazoo's message). */
  appInstalled: () => new ApiError(400, 'Application already installed', { message: 'application already installed' }),

  /** 400: `POST`/`DELETE …/apps_store/{app_id}` for an app the account has not installed (Kazoo's message). */
  appNotInstalled: () => new ApiError(400, 'Application is not installed', { message: 'application is not installed' }),

  /** 404: `auth/tokeninfo` without a token to look at (Kazoo's status and message; `where`: request or params). */
  missingToken: (where: 'request' | 'params') =>
    new ApiError(404, `missing token in ${where}`, { message: `missing token in ${where}` }),

  /** 404: a number no account the caller may see holds (Kazoo's `reply_number_not_found`). */
  numberNotFound: () => new ApiError(404, 'bad_identifier', { message: 'bad identifier', not_found: 'The number could not be found' }),

  /** A number operation's failure as Kazoo's `knm_errors` tells it: its code is the status, its error the message. */
  numberError: (e: { code: number; error: string; message: string; cause?: string }) => new ApiError(e.code, e.error, e),

  /** 400: a number asked about that is not in service (`identify`: Kazoo's client error). */
  numberNotInService: (data: Record<string, unknown>) => new ApiError(400, 'client error', data),

  /** 415: an upload of a type the endpoint does not store; `accepted` lists those it does. */
  unsupportedMediaType: (accepted: string[]) =>
    new ApiError(415, 'unsupported_media_type', { message: 'unsupported media type', accepted }),

  /** 503: another process holds the database file longer than a request may wait (as Kazoo's datastore timeout). */
  datastoreTimeout: () =>
    new ApiError(
      503,
      'datastore timeout',
      { cause: 'another process holds the database file: try again', message: 'datastore timeout' },
      { 'Retry-After': '1' },
    ),

  /** 507: the disk under the database is full: nothing can be written until space is freed (reads go on). */
  datastoreFull: () =>
    new ApiError(
      507,
      'datastore full',
      { cause: STORAGE_CAUSES.full, message: 'datastore full' },
      { 'Retry-After': String(STORAGE_RETRY_AFTER_S.full) },
    ),

  /** 503: the database file cannot be written or read now (an I/O error, a read-only file, a file that cannot be opened). */
  datastoreUnavailable: (fault: Exclude<StorageFault, 'full'>) =>
    new ApiError(
      503,
      'datastore unavailable',
      { cause: STORAGE_CAUSES[fault], message: 'datastore unavailable' },
      { 'Retry-After': String(STORAGE_RETRY_AFTER_S.unavailable) },
    ),

  /** 500: something broke; the details go to the log, never to the client. */
  internal: () => new ApiError(500, 'internal_server_error', { message: 'internal server error' }),

  /** 500: Kazoo's `unspecified_fault`, for what its module cannot do (a quickcall with no endpoint to ring). */
  unspecifiedFault: (cause: string) => new ApiError(500, 'unspecified_fault', { message: 'unspecified fault', cause }),
} as const;

/** How many of an enum's values a sentence lists before saying how many more there are. */
const LISTED_VALUES = 40;

/**
 * What a validation rule says, in a sentence for a person (the CLI, a lab file's problems): its
 * message, and for a value not among an enum's, the values that are (`one of: admin, user`).
 */
export function describeRule(rule: string, detail: { message?: unknown; target?: unknown } | undefined): string {
  const message = String(detail?.message ?? rule);
  const allowed = detail?.target;
  if (rule !== 'enum' || !Array.isArray(allowed) || allowed.length === 0) return message;
  const shown = allowed.slice(0, LISTED_VALUES).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  const more = allowed.length > LISTED_VALUES ? ` and ${allowed.length - LISTED_VALUES} more` : '';
  return `${message} (one of: ${shown.join(', ')}${more})`;
}

/** One sentence for an error, as the CLI and the live view tell it. */
export function describeError(err: unknown): string {
  // a SQLite error that names a storage fault is told as the API answers it
  const fault = err instanceof ApiError ? undefined : storageFaultOf(err);
  if (fault) return describeError(storageError(fault));
  if (err instanceof ApiError) {
    const d = err.data as Record<string, unknown> | undefined;
    if (err.status === 400 && d && typeof d === 'object') {
      const parts: string[] = [];
      for (const [field, rules] of Object.entries(d)) {
        for (const [rule, detail] of Object.entries((rules ?? {}) as Record<string, { message?: string }>)) {
          parts.push(`${field}: ${describeRule(rule, detail)}`);
        }
      }
      if (parts.length) return `Refused: ${parts.join('; ')}.`;
    }
    if (err.status === 404) return `Not found: ${String((d as { cause?: string })?.cause ?? 'no such item')}.`;
    const msg = (d as { message?: string; cause?: string })?.cause ?? (d as { message?: string })?.message ?? err.kazooMessage;
    return `Refused (${err.status}): ${msg}.`;
  }
  return (err as Error)?.message ?? String(err);
}

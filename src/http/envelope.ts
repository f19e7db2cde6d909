import { createHash } from 'node:crypto';
import { isoSeconds } from '../util/time.js';
import { VERSION } from '../version.js';
import type { ApiError } from './errors.js';

/** The node name the envelope reports. */
export const NODE_NAME = `tel@${process.env.HOSTNAME ?? 'localhost'}`;

/** Extra envelope keys a handler may add (listings). */
export interface EnvelopeExtras {
  page_size?: number;
  start_key?: unknown;
  next_start_key?: unknown;
  revision?: string;
  [key: string]: unknown;
}

/** Builds the success envelope around `data`. */
export function successEnvelope(
  data: unknown,
  requestId: string,
  authToken: string | undefined,
  extras: EnvelopeExtras = {},
  authenticated = true,
): Record<string, unknown> {
  const { revision, ...rest } = extras;
  const env: Record<string, unknown> = {};
  if (authToken) env.auth_token = authToken;
  if (data !== undefined) env.data = data;
  Object.assign(env, rest);
  env.node = NODE_NAME;
  env.request_id = requestId;
  env.revision = revision ?? listRevision(data);
  env.status = 'success';
  env.timestamp = isoSeconds();
  // Kazoo tells its version only to a caller whose token it checked.
  if (authenticated) env.version = VERSION;
  return env;
}

/** Builds the error envelope for an ApiError. */
export function errorEnvelope(
  err: ApiError,
  requestId: string,
  authToken: string | undefined,
  authenticated = true,
): Record<string, unknown> {
  const env: Record<string, unknown> = {};
  if (authToken) env.auth_token = authToken;
  env.data = err.data ?? {};
  env.error = String(err.status);
  env.message = err.kazooMessage;
  env.node = NODE_NAME;
  env.request_id = requestId;
  env.status = 'error';
  env.timestamp = isoSeconds();
  if (authenticated) env.version = VERSION;
  return env;
}

function listRevision(data: unknown): string {
  return createHash('md5').update(JSON.stringify(data ?? null)).digest('hex');
}

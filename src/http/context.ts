import type { IncomingHttpHeaders } from 'node:http';
import type { ParsedPath } from '../api-path.js';
import type { Upload } from '../modules/documents/files.js';

/** Everything a handler knows about one request. */
export interface RequestContext {
  method: string;
  url: string;
  path: ParsedPath;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** the request envelope (`{data, accept_charges, …}`), `{}` when the body is empty */
  envelope: Record<string, unknown>;
  /** `envelope.data`, or undefined */
  data: unknown;
  requestId: string;
  /** route parameters by name (`:account_id` → params.account_id) */
  params: Record<string, string>;
  /** set once the token is checked */
  auth?: import('../modules/auth/service.js').AuthInfo;
  /** the client's address (the socket's peer) */
  remoteAddress?: string;
  /** the raw token string sent, echoed in the envelope */
  authToken?: string;
  /** a file sent as the body of a route that takes one (`RouteDef.upload`): its type and bytes */
  upload?: Upload;
  /** a body over 64 KiB of a route that parses its own (`RouteDef.unparsedLargeBody`); `envelope` is then empty */
  unparsedBody?: Buffer;
}

import type { IncomingMessage } from 'node:http';

/** One request as the access log tells it (`tel serve --access-log`). */
export interface AccessEntry {
  /** when the answer ended, ISO 8601 UTC with milliseconds */
  time: string;
  /** the client's address */
  remote: string;
  method: string;
  /** the path and query, secrets left out (see `withoutSecrets`) */
  url: string;
  status: number;
  /** the body's bytes as sent (Content-Length), null when streamed without one */
  bytes: number | null;
  ms: number;
  request_id: string;
  user_agent: string | null;
}

/** Query parameters whose value is a secret: a token, a key, a password, credentials, a signature. */
const SECRET_PARAM = /token|key|secret|pass|cred|sig/i;
/** A value in a JWT's form (`header.payload.signature`): tel's tokens, wherever a path or query carries one. */
const TOKEN_FORM = /^[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}$/;

/**
 * A request's URL as the log may show it: every query value whose name says it is a secret, and
 * every path segment or query value in a token's form (`/v2/user_auth/{token}`), replaced by `-`.
 */
export function withoutSecrets(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (TOKEN_FORM.test(safeDecode(segment)) ? '-' : segment))
    .join('/');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = safeDecode(pair.slice(0, eq));
      return SECRET_PARAM.test(name) || TOKEN_FORM.test(safeDecode(pair.slice(eq + 1))) ? `${pair.slice(0, eq)}=-` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** How a request was answered, as the server knows it once the answer is written. */
export interface Answered {
  status: number;
  /** the body's bytes, null when streamed */
  bytes: number | null;
  requestId: string;
  /** `performance.now()` when the request arrived */
  startedMs: number;
}

/** The entry of a request answered. */
export function accessEntry(req: IncomingMessage, a: Answered): AccessEntry {
  return {
    time: new Date().toISOString(),
    remote: req.socket.remoteAddress ?? '-',
    method: req.method ?? '-',
    url: withoutSecrets(req.url ?? ''),
    status: a.status,
    bytes: a.bytes,
    ms: Math.round((performance.now() - a.startedMs) * 10) / 10,
    request_id: a.requestId,
    user_agent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
  };
}

/** An entry as one line of text: the common log format's fields, then the time taken and the request id. */
export function accessLine(e: AccessEntry): string {
  const agent = e.user_agent === null ? '-' : JSON.stringify(e.user_agent);
  return `${e.remote} - - [${e.time}] "${e.method} ${e.url}" ${e.status} ${e.bytes ?? '-'} ${agent} ${e.ms}ms ${e.request_id}`;
}

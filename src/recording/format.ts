/**
 * The recording `tel record` writes and `tel diff` reads: one file of JSON Lines (docs/record-diff.md
 * describes it for whoever reads one). The first line is the header; then, in the order they
 * were made, a line for each placeholder the recorder minted and one for each exchange. Exchange
 * lines come in the order their answers ended; `seq` gives the order their requests started.
 */

/** The format's version, the header's `tel_recording`. */
export const RECORDING_VERSION = 1;

/** The first line. */
export interface RecordingHeader {
  tel_recording: typeof RECORDING_VERSION;
  /** when recording began (ISO 8601) */
  started: string;
  /** the server the exchanges went to */
  upstream: string;
  /** base64: the salt of the placeholders of login secrets (see secrets.ts) */
  salt: string;
  /** how placeholders are made, in words */
  placeholders: string;
}

/** What a secret was, as its placeholder's line says (never the secret). */
export type SecretKind = 'token' | 'api_key' | 'credentials' | 'password' | 'secret' | 'pin';

/** A placeholder the recorder minted: every string the recording holds in place of a secret. */
export interface SecretLine {
  secret: string;
  kind: SecretKind;
  /**
   * a login form (the md5 or sha1 hex of `username:password` a client logs in with) of a user
   * whose password the recorded client set: what a replay sends is made from what it sent as that password
   */
  login?: { username: string; password: string; form: 'md5' | 'sha1' };
}

/** A request or an answer: headers, and the body as JSON, text or base64 (or left out, with why). */
export interface RecordedMessage {
  /** lower-case names; a header sent more than once is a list */
  headers: Record<string, string | string[]>;
  /** a body that parsed as JSON (decoded from its content-encoding first) */
  body?: unknown;
  body_text?: string;
  body_base64?: string;
  /** the body's size as sent, in bytes */
  body_bytes: number;
  /** why the body is not in the recording (too large) */
  body_omitted?: string;
}

export interface RecordedRequest extends RecordedMessage {
  method: string;
  path: string;
  /** the query string without its `?`, '' when none */
  query: string;
}

export interface RecordedResponse extends RecordedMessage {
  status: number;
}

/** One request and its answer, or a request that got none (`aborted` says why). */
export interface RecordedExchange {
  seq: number;
  /** when the request started, in ms since recording began */
  at_ms: number;
  request: RecordedRequest;
  response?: RecordedResponse;
  /** ms from the request's start to the answer's headers, and to its end */
  ms?: { headers: number; total: number };
  aborted?: string;
}

export type RecordingLine = RecordingHeader | SecretLine | RecordedExchange;

export const isHeader = (line: RecordingLine): line is RecordingHeader => 'tel_recording' in line;
export const isSecretLine = (line: RecordingLine): line is SecretLine => 'secret' in line && 'kind' in line;
export const isExchange = (line: RecordingLine): line is RecordedExchange => 'seq' in line && 'request' in line;

/** A body larger than this is left out of the recording (its size kept): 32 MiB. */
export const MAX_RECORDED_BODY_BYTES = 32 * 1024 * 1024;

/** Headers that concern one connection, never forwarded nor replayed. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'http2-settings']);

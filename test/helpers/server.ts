import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeCore, openCore, type Core } from '../../src/core.js';
import { startApi, type RunningApi } from '../../src/http/app.js';
import { initDatabase, type InitResult } from '../../src/modules/accounts/bootstrap.js';
import { contractViolation } from './contract.js';

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix = 'tel-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What a test sees of an HTTP answer. */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  data?: unknown;
  /** a raw body (sent as is) instead of `{data}` */
  body?: string;
  envelope?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A real tel server on 127.0.0.1 with a temporary database and its master account. */
export interface TestServer {
  url: string;
  core: Core;
  dbFile: string;
  master: InitResult;
  /** the master account's admin password */
  password: string;
  /** a super-duper admin token (api_auth on the master account) */
  adminToken: string;
  api: RunningApi;
  request(method: string, path: string, opts?: RequestOptions): Promise<ApiAnswer>;
  /** logs in with an API key; answers the token */
  apiLogin(apiKey: string, restrictions?: unknown): Promise<string>;
  /** logs in with username/password on an account name; answers the token */
  userLogin(accountName: string, username: string, password: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Fails the test when an answer breaks the OpenAPI document (contract.ts); with
 * `TEL_CONTRACT_REPORT=FILE` the breaches are written to FILE instead, one a line.
 */
function keepsContract(method: string, path: string, res: Response, body: unknown): void {
  const breach = contractViolation(method, path, res.status, res.headers.get('content-type'), body);
  if (!breach) return;
  const report = process.env.TEL_CONTRACT_REPORT;
  if (report) appendFileSync(report, `${breach}\n`);
  else throw new Error(`the answer breaks the OpenAPI document: ${breach}`);
}

/** The verb a POST stands for (`?verb=`, the envelope's or its data's `verb`), whose operation its answer is. */
function tunnelled(method: string, path: string, opts: RequestOptions): string | undefined {
  if (method !== 'POST') return undefined;
  const verb = new URLSearchParams(path.split('?')[1] ?? '').get('verb') ?? (opts.data as { verb?: unknown } | undefined)?.verb ?? opts.envelope?.verb;
  return typeof verb === 'string' ? verb.toUpperCase() : undefined;
}

/** Sends one request to a base URL. */
export async function httpRequest(base: string, method: string, path: string, opts: RequestOptions = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers['X-Auth-Token'] = opts.token;
  let body: string | undefined = opts.body;
  if (body === undefined && (opts.data !== undefined || opts.envelope)) {
    body = JSON.stringify({ ...(opts.envelope ?? {}), ...(opts.data !== undefined ? { data: opts.data } : {}) });
  }
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  keepsContract(tunnelled(method, path, opts) ?? method, path, res, parsed);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Starts a server in this process on a free port over a new temporary database. */
export async function startTestServer(): Promise<TestServer> {
  const tmp = tempDir();
  const dbFile = join(tmp.dir, 'tel.db');
  const core = openCore(dbFile);
  const password = 'secret-pass';
  const master = initDatabase(core, { account: 'Master', username: 'admin', password });
  const api = await startApi(core, '127.0.0.1', 0);
  const request = (method: string, path: string, opts?: RequestOptions) => httpRequest(api.url, method, path, opts);
  const apiLogin = async (apiKey: string, restrictions?: unknown) => {
    const r = await request('PUT', '/v2/api_auth', { data: { api_key: apiKey, ...(restrictions ? { restrictions } : {}) } });
    if (r.status !== 201) throw new Error(`api_auth failed: ${r.status} ${r.text}`);
    return r.body.auth_token as string;
  };
  const userLogin = async (accountName: string, username: string, pw: string) => {
    const { createHash } = await import('node:crypto');
    const credentials = createHash('md5').update(`${username}:${pw}`).digest('hex');
    const r = await request('PUT', '/v2/user_auth', { data: { credentials, account_name: accountName } });
    if (r.status !== 201) throw new Error(`user_auth failed: ${r.status} ${r.text}`);
    return r.body.auth_token as string;
  };
  const adminToken = await apiLogin(master.api_key);
  return {
    url: api.url,
    core,
    dbFile,
    master,
    password,
    adminToken,
    api,
    request,
    apiLogin,
    userLogin,
    async close() {
      await api.close();
      closeCore(core);
      tmp.cleanup();
    },
  };
}

/** Creates a sub-account through the API and answers its id and API key. */
export async function createSubAccount(
  srv: TestServer,
  parentId: string,
  name: string,
  token: string = srv.adminToken,
): Promise<{ id: string; apiKey: string }> {
  const r = await srv.request('PUT', `/v2/accounts/${parentId}`, { token, data: { name } });
  if (r.status !== 201) throw new Error(`account create failed: ${r.status} ${r.text}`);
  const k = await srv.request('GET', `/v2/accounts/${r.body.data.id}/api_key`, { token });
  return { id: r.body.data.id, apiKey: k.body.data.api_key };
}

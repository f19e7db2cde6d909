import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import type { TestServer } from './server.js';

/** What a test sees of an answer to a request sent from a chosen address. */
export interface AnswerFrom {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  ms: number;
}

/**
 * A JSON request sent from a chosen local address (127.0.0.0/8 all reaches a loopback server): a
 * client of its own, as the login throttle counts them.
 */
export function requestFrom(base: string, localAddress: string, method: string, path: string, data?: unknown, headers: Record<string, string> = {}): Promise<AnswerFrom> {
  const url = new URL(base + path);
  const body = data === undefined ? undefined : JSON.stringify({ data });
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method, localAddress, headers: { 'Content-Type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined, ms: Date.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Creates a user of the account named `accountName` (first name `username`, password
 * `pw-<username>-1`) with the super-duper admin's token, and answers a token of that user.
 */
export async function userToken(srv: TestServer, account: string, accountName: string, username: string, priv_level: 'admin' | 'user'): Promise<string> {
  const r = await srv.request('PUT', `/v2/accounts/${account}/users`, { token: srv.adminToken, data: { username, password: `pw-${username}-1`, first_name: username, last_name: accountName, priv_level } });
  expect(r.status, r.text).toBe(201);
  return srv.userLogin(accountName, username, `pw-${username}-1`);
}

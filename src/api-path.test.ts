import { describe, expect, it } from 'vitest';
import { parsePath } from './api-path.js';
import { endpointNames } from './core.js';

const A = 'a'.repeat(32);
const U = 'b'.repeat(32);

describe('the endpoints restrictions are decided on, for the account operations', () => {
  const endpoints = endpointNames();
  const cases: [path: string, endpoint: string, args: string[]][] = [
    ['/v2/about', 'about', []],
    [`/v2/accounts/${A}/about`, 'about', []],
    [`/v2/accounts/${A}/configs/crossbar.auth`, 'configs', ['crossbar.auth']],
    [`/v2/accounts/${A}/resource_templates/${U}`, 'resource_templates', [U]],
    [`/v2/accounts/${A}/ledgers`, 'ledgers', []],
    // Kazoo's: what is not a module is an argument of the resource before it
    [`/v2/accounts/${A}/move`, 'accounts', [A, 'move']],
    [`/v2/accounts/${A}/reseller`, 'accounts', [A, 'reseller']],
    [`/v2/accounts/${A}/siblings`, 'accounts', [A, 'siblings']],
    [`/v2/accounts/${A}/users/${U}/vcard`, 'users', [U, 'vcard']],
    [`/v2/accounts/${A}/users/${U}/photo`, 'users', [U, 'photo']],
    [`/v2/accounts/${A}/queues/${U}/roster`, 'queues', [U, 'roster']],
    [`/v2/accounts/${A}/apps_store/blacklist`, 'apps_store', ['blacklist']],
    [`/v2/accounts/${A}/apps_store/${U}/screenshot/0`, 'apps_store', [U, 'screenshot', '0']],
    [`/v2/accounts/${A}/whitelabel/domains`, 'whitelabel', ['domains']],
    [`/v2/accounts/${A}/whitelabel/ui.example.com/welcome`, 'whitelabel', ['ui.example.com', 'welcome']],
    ['/v2/system_configs/crossbar.auth/node1@lab', 'system_configs', ['crossbar.auth', 'node1@lab']],
    ['/v2/user_auth/eyJhbGciOi.eyJhY2NvdW50.c2lnbmF0dXJl', 'user_auth', ['eyJhbGciOi.eyJhY2NvdW50.c2lnbmF0dXJl']],
  ];
  for (const [path, endpoint, args] of cases) {
    it(`${path} → ${endpoint} [${args.join(', ')}]`, () => {
      const parsed = parsePath(path, endpoints);
      expect(parsed.invalid).toBeUndefined();
      expect(parsed.endpoint).toBe(endpoint);
      expect(parsed.args).toEqual(args);
    });
  }
});

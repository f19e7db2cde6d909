import { describe, expect, it } from 'vitest';
import { MODULES } from '../modules/index.js';
import { coverage, kazooCoverage, kazooOperations } from './kazoo-coverage.js';
import { KAZOO_NOTES } from './kazoo-notes.js';

describe("the coverage of Kazoo's operations (docs/kazoo-coverage.md)", () => {
  const routes = MODULES.flatMap((m) => m.routes ?? []);
  const modules = coverage(routes);

  it('holds the 548 operations of Kazoo’s OpenAPI paths, each once', () => {
    const ops = kazooOperations();
    expect(ops).toHaveLength(548);
    expect(new Set(ops.map((o) => `${o.method} ${o.path}`)).size).toBe(548);
  });

  it('counts an operation served when a route has its method and path, whatever its parameters are called', () => {
    const ops = kazooOperations(['GET /accounts/{ACCOUNT_ID}/menus/{MENU_ID} menus', 'PUT /accounts/{ACCOUNT_ID}/menus/{MENU_ID} menus', 'GET /accounts/{ACCOUNT_ID}/menus/name menus']);
    const [menus] = coverage([{ method: 'GET', path: 'accounts/:account_id/menus/:doc_id' }], ops);
    expect(menus.served.map((o) => `${o.method} ${o.path}`)).toEqual(['GET /accounts/{ACCOUNT_ID}/menus/{MENU_ID}']);
    expect(menus.missing).toHaveLength(2);
    const page = kazooCoverage([menus], { menus: 'why' });
    expect(page).toContain('**tel serves 1 of Kazoo\'s 3 operations (33 %).**');
    expect(page).toContain('| `menus` | 1/3 | why |');
    expect(page).toContain('- `menus`: `PUT /accounts/{ACCOUNT_ID}/menus/{MENU_ID}`, `GET /accounts/{ACCOUNT_ID}/menus/name`');
  });

  it("counts an operation on Kazoo's {ENDPOINT_TYPE} served when both users' and devices' routes are", () => {
    const ops = kazooOperations(['GET /accounts/{ACCOUNT_ID}/{ENDPOINT_TYPE}/{ENDPOINT_ID}/quickcall/{NUMBER} quickcall']);
    const device = { method: 'GET' as const, path: 'accounts/:account_id/devices/:device_id/quickcall/:number' };
    const user = { method: 'GET' as const, path: 'accounts/:account_id/users/:user_id/quickcall/:number' };
    expect(coverage([device], ops)[0].served).toHaveLength(0);
    expect(coverage([device, user], ops)[0].served).toHaveLength(1);
  });

  it('says why for every module not served whole, and for no other', () => {
    const partly = modules.filter((m) => m.missing.length > 0).map((m) => m.module);
    expect(partly.filter((m) => !KAZOO_NOTES[m]), 'a module without a note in src/docs/kazoo-notes.ts').toEqual([]);
    expect(Object.keys(KAZOO_NOTES).filter((m) => !partly.includes(m)), 'a note of a module now served whole').toEqual([]);
  });

  it('serves the plain document modules whole', () => {
    const whole = ['access_lists', 'blacklists', 'clicktocall', 'comments', 'connectivity', 'contact_list', 'dialplans', 'directories', 'groups', 'hotdesks', 'ip_auth', 'lists', 'menus', 'metaflows', 'rate_limits', 'rates', 'resource_selectors', 'schemas', 'storage', 'temporal_rules', 'temporal_rules_sets'];
    for (const name of whole) expect(modules.find((m) => m.module === name)?.missing, name).toEqual([]);
  });

  it('serves the switch-facing modules whole', () => {
    const whole = ['acdc_call_stats', 'channels', 'faxes', 'mms', 'parked_calls', 'quickcall', 'recordings', 'sms'];
    for (const name of whole) expect(modules.find((m) => m.module === name)?.missing, name).toEqual([]);
  });
});

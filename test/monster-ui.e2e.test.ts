/**
 * Kazoo's own web UI (Monster UI with its Webhooks app), unchanged, in a real headless Chromium
 * against tel. Opt-in: it needs what CI cannot fetch.
 *
 *   TEL_MONSTER_UI=/path/to/monster-ui                 a Monster UI checkout (required)
 *   TEL_MONSTER_UI_WEBHOOKS=/path/to/monster-ui-webhooks   the Webhooks app (default: beside it)
 *   TEL_CHROMIUM=/usr/bin/chromium                      the browser (default /usr/bin/chromium)
 *   TEL_E2E_DEPS=dir                                    where puppeteer-core and sass get installed
 *   TEL_E2E_SHOTS=dir                                   a screenshot of each step goes there
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { buildMonsterUi, e2eDeps, serveStatic } from './helpers/monster-ui.js';

const MONSTER_UI = process.env.TEL_MONSTER_UI;

/** One API call the UI made, as the browser saw it. */
interface ApiCall {
  method: string;
  path: string;
  status: number;
}

/**
 * The error answers Kazoo itself gives on this walk: the login page asks for the whitelabel
 * document, logo and icon of the domain it is served on, which no account claimed (404).
 */
function kazooAnswersSo(call: ApiCall): boolean {
  return call.method === 'GET' && call.status === 404 && /^\/v2\/whitelabel\/[^/]+(\/logo|\/icon)?$/.test(call.path);
}

describe.skipIf(!MONSTER_UI)('Monster UI and its Webhooks app, unchanged, on tel (headless Chromium)', () => {
  let srv: TestServer;
  let sink: Sink;
  let ui: { url: string; server: Server };
  let browser: any;
  let page: any;
  let work: string;
  let step = 0;
  const calls: ApiCall[] = [];
  const failedRequests: string[] = [];
  const hooks: Record<string, string> = {};
  const shots = process.env.TEL_E2E_SHOTS;

  const api = (method: string, path: string, data?: unknown) => srv.request(method, `/v2/accounts/${srv.master.account_id}${path}`, { token: srv.adminToken, data });
  const shot = async (name: string) => {
    step += 1;
    if (shots) await page.screenshot({ path: join(shots, `${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
  /** Waits until `check` (run in the page) is true. */
  const until = (check: string, timeout = 20_000) => page.waitForFunction(check, { timeout, polling: 100 });
  const row = (name: string) => `#webhooks_wrapper .grid-row[data-search="${name}"]`;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'tel-monster-ui-'));
    if (shots) mkdirSync(shots, { recursive: true });
    const deps = e2eDeps(process.env.TEL_E2E_DEPS ?? join(tmpdir(), 'tel-e2e-deps'));

    srv = await startTestServer();
    sink = await startSink();
    sink.respond((r) => ({ status: r.path === '/broken' ? 500 : 200 }));
    // one failed delivery turns a hook off, so the UI has a failing hook to re-enable
    await srv.request('POST', '/v2/system_configs/webhooks', { token: srv.adminToken, data: { default: { attempt_failure_count: 1, retry_base_delay_ms: 0 } } });
    for (const [name, path] of [['CRM', '/crm'], ['Broken', '/broken'], ['Old', '/old']]) {
      const r = await api('PUT', '/webhooks', { name, uri: `${sink.url}${path}`, hook: 'channel_create', http_verb: 'post', format: 'json', retries: 0 });
      hooks[name] = r.body.data.id;
    }
    await api('PUT', '/simulations', { kind: 'call', direction: 'inbound', caller_id_number: '+15551230001', callee_id_number: '+15551239999' });
    for (let i = 0; i < 100; i++) {
      const broken = await api('GET', `/webhooks/${hooks.Broken}`);
      if (broken.body.data.enabled === false && (await api('GET', `/webhooks/${hooks.CRM}/attempts`)).body.data.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    const webhooksApp = process.env.TEL_MONSTER_UI_WEBHOOKS ?? [join(MONSTER_UI!, 'src', 'apps', 'webhooks'), join(dirname(MONSTER_UI!), 'monster-ui-webhooks')].find((p) => existsSync(join(p, 'app.js')));
    if (!webhooksApp) throw new Error('No Webhooks app: set TEL_MONSTER_UI_WEBHOOKS to a monster-ui-webhooks checkout.');
    const outDir = join(work, 'ui');
    buildMonsterUi({ monsterUi: MONSTER_UI!, webhooksApp, apiUrl: `${srv.url}/v2/`, outDir, deps });
    ui = await serveStatic(outDir);

    const puppeteer = deps.require('puppeteer-core');
    browser = await puppeteer.launch({
      executablePath: process.env.TEL_CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${join(work, 'profile')}`,
      ],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    page.on('response', (res: any) => {
      const req = res.request();
      if (!res.url().startsWith(srv.url) || req.method() === 'OPTIONS') return;
      calls.push({ method: req.method(), path: new URL(res.url()).pathname, status: res.status() });
    });
    page.on('requestfailed', (req: any) => {
      if (req.url().startsWith(srv.url)) failedRequests.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText}`);
    });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (ui ? ui.server.close(r) : r(undefined)));
    await sink?.close();
    await srv?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('logs in as the admin user and opens the Webhooks app on the hooks made through the API', async () => {
    await page.goto(ui.url, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#login', { visible: true });
    await shot('login-page');
    await page.type('#login', 'admin');
    await page.type('#password', srv.password);
    await page.type('#account_name', 'Master');
    await page.click('button.login');
    await page.waitForSelector(row('CRM'), { visible: true, timeout: 30_000 });
    const names = await page.$$eval('#webhooks_wrapper .grid-row[data-search]', (rows: any[]) => rows.map((r) => r.getAttribute('data-search')));
    expect(names).toEqual(['Broken', 'CRM', 'Old']);
    expect(await page.$eval(`${row('Broken')}`, (r: any) => r.classList.contains('error'))).toBe(true);
    await shot('webhooks-list');
  });

  it('saves a new hook from the New form', async () => {
    await page.click('#webhooks_wrapper .new-webhook');
    await page.waitForSelector('#webhook_edition_form input[name="name"]', { visible: true });
    await page.type('#webhook_edition_form input[name="name"]', 'Inventory');
    await page.type('#webhook_edition_form input[name="uri"]', `${sink.url}/inventory`);
    await page.select('#webhook_edition_form select[name="hook"]', 'channel_destroy');
    await page.select('#webhook_edition_form select[name="http_verb"]', 'post');
    await shot('new-webhook-form');
    await page.click('.webhook-edition .action-bar .save');
    await page.waitForSelector(row('Inventory'), { visible: true });
    const listed = (await api('GET', '/webhooks')).body.data.find((h: any) => h.name === 'Inventory');
    expect(listed).toMatchObject({ hook: 'channel_destroy', uri: `${sink.url}/inventory`, enabled: true });
    hooks.Inventory = listed.id;
    expect((await api('GET', `/webhooks/${listed.id}`)).body.data).toMatchObject({ http_verb: 'post', retries: expect.any(Number) });
    await shot('new-webhook-saved');
  });

  it('toggles a hook off with its switch', async () => {
    await page.click(`${row('CRM')} .webhook-status-toggle label.monster-switch`);
    await until(`document.querySelector('${row('CRM')}').classList.contains('disabled')`);
    for (let i = 0; i < 50 && (await api('GET', `/webhooks/${hooks.CRM}`)).body.data.enabled !== false; i++) await new Promise((r) => setTimeout(r, 100));
    const crm = (await api('GET', `/webhooks/${hooks.CRM}`)).body.data;
    expect(crm.enabled).toBe(false);
    expect(crm.disable_reason).toBeUndefined();
    await shot('crm-toggled-off');
  });

  it("opens a hook's request log (its delivery attempts)", async () => {
    await page.click(`${row('CRM')} .webhook-actions .history`);
    await page.waitForSelector('#webhooks_attempts_grid tbody tr td', { visible: true });
    const text = await page.$eval('#webhooks_attempts_grid tbody', (t: any) => t.innerText);
    expect(text).toMatch(/POST/);
    expect(calls.some((c) => c.path === `/v2/accounts/${srv.master.account_id}/webhooks/${hooks.CRM}/attempts` && c.status === 200)).toBe(true);
    await shot('crm-request-log');
    await page.click('.webhook-attempts .back-button');
    await page.waitForSelector(row('CRM'), { visible: true });
  });

  it('"Re-enable all failing webhooks" turns the hook the server disabled back on', async () => {
    expect((await api('GET', `/webhooks/${hooks.Broken}`)).body.data.enabled).toBe(false);
    await shot('before-reenable');
    await page.click('#webhooks_wrapper .reenable-button');
    await until(`(() => { const r = document.querySelector('${row('Broken')}'); return r && !r.classList.contains('error') && !r.classList.contains('disabled'); })()`);
    expect((await api('GET', `/webhooks/${hooks.Broken}`)).body.data.enabled).toBe(true);
    // the one turned off by hand stays off: only failing hooks are re-enabled
    expect((await api('GET', `/webhooks/${hooks.CRM}`)).body.data.enabled).toBe(false);
    await shot('after-reenable');
  });

  it('deletes a hook', async () => {
    await page.click(`${row('Old')} .webhook-actions .delete`);
    await page.waitForSelector(`${row('Old')} .confirm-delete`, { visible: true });
    await shot('delete-confirm');
    await page.click(`${row('Old')} .confirm-delete`);
    await page.waitForSelector(row('Old'), { hidden: true });
    expect((await api('GET', `/webhooks/${hooks.Old}`)).status).toBe(404);
    await shot('old-deleted');
  });

  it('stays logged in across a reload (auth/tokeninfo)', async () => {
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForSelector(row('Inventory'), { visible: true, timeout: 30_000 });
    expect(await page.$('#login')).toBeNull();
    expect(calls.some((c) => c.method === 'POST' && c.path === '/v2/auth/tokeninfo' && c.status === 200)).toBe(true);
    await shot('reloaded-still-logged-in');
  });

  it('no API call on the way answered 4xx/5xx but those Kazoo answers so', () => {
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.filter((c) => c.status >= 400 && !kazooAnswersSo(c))).toEqual([]);
    expect(failedRequests).toEqual([]);
    for (const path of ['/v2/user_auth', `/v2/accounts/${srv.master.account_id}/apps_store`]) {
      expect(calls.some((c) => c.path === path && c.status < 300), path).toBe(true);
    }
  });
});

/**
 * Kazoo's own web UI (Monster UI with its Webhooks app), unchanged, in a real headless Chromium
 * against tel. Opt-in: it needs what CI cannot fetch.
 *
 *   TEL_MONSTER_UI=/path/to/monster-ui                 a Monster UI checkout (required)
 *   TEL_MONSTER_UI_WEBHOOKS=/path/to/monster-ui-webhooks   the Webhooks app (default: beside it)
 *   TEL_MONSTER_UI_ACCOUNTS=/path/to/monster-ui-accounts   Account Manager: its steps run only when
 *                                                       this is set (they do not pass yet: after
 *                                                       the first login the app is not offered)
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
import { addApp } from '../src/modules/apps-store/service.js';

const MONSTER_UI = process.env.TEL_MONSTER_UI;
/** Account Manager's checkout, when there is one. */
const ACCOUNTS_APP = MONSTER_UI ? process.env.TEL_MONSTER_UI_ACCOUNTS : undefined;

/** One API call the UI made, as the browser saw it. */
interface ApiCall {
  method: string;
  path: string;
  status: number;
}

/**
 * The error answers Kazoo itself gives on this walk, all 404: the login page asks for the
 * whitelabel document, logo and icon of the domain it is served on, which no account claimed;
 * after login the UI probes two endpoints a Kazoo without them answers 404 too (`external_numbers`,
 * a caller-id capability open-source Kazoo lacks, and `braintree/customer`, card billing served
 * only where Kazoo's Braintree application runs) and reads the 404 as "absent".
 */
function kazooAnswersSo(call: ApiCall): boolean {
  if (call.method !== 'GET' || call.status !== 404) return false;
  return (
    /^\/v2\/whitelabel\/[^/]+(\/logo|\/icon)?$/.test(call.path) ||
    /^\/v2\/accounts\/[0-9a-f]{32}\/(external_numbers|braintree\/customer)$/.test(call.path)
  );
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
  /** Waits until what `selector` names is visible and has stopped moving (Monster UI animates its panels). */
  const settled = async (selector: string) => {
    await page.waitForSelector(selector, { visible: true });
    let last = '';
    for (let still = 0; still < 3; ) {
      const now = await page.$eval(selector, (el: any) => {
        const r = el.getBoundingClientRect();
        let o = 1;
        for (let e = el; e; e = e.parentElement) o *= Number((globalThis as any).getComputedStyle(e).opacity);
        return `${r.x},${r.y},${r.width},${r.height},${o}`;
      });
      still = now === last && now.endsWith(',1') ? still + 1 : 0;
      last = now;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const clickSettled = async (selector: string) => {
    await settled(selector);
    await page.click(selector);
  };

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
    const apps: Record<string, string> = {};
    if (ACCOUNTS_APP) {
      apps.accounts = ACCOUNTS_APP;
      // in the catalogue as an operator adds it (`tel apps add accounts --label …`), before the first login
      // (a user's launcher lists the apps there then; one added later waits for the App Exchange)
      addApp(srv.core, { name: 'accounts', tags: ['reseller'], i18n: { 'en-US': { label: 'Accounts Manager' } } });
    }
    buildMonsterUi({ monsterUi: MONSTER_UI!, webhooksApp, apps, apiUrl: `${srv.url}/v2/`, outDir, deps });
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
    // A user's first login: Monster UI greets them with a walkthrough; closing it is remembered
    // on the user, and leaves the app launcher open on the apps the login answered.
    await page.waitForSelector('.ui-dialog .ui-dialog-titlebar-close', { visible: true, timeout: 30_000 });
    await settled('.ui-dialog .ui-dialog-titlebar-close');
    await shot('first-login-greeting');
    await clickSettled('.ui-dialog .ui-dialog-titlebar-close');
    await settled('.app-list .app-element[data-name="webhooks"]');
    await shot('app-launcher');
    await clickSettled('.app-list .app-element[data-name="webhooks"]');
    await page.waitForSelector('.app-list', { hidden: true });
    await page.waitForSelector(row('CRM'), { visible: true, timeout: 30_000 });
    const names = await page.$$eval('#webhooks_wrapper .grid-row[data-search]', (rows: any[]) => rows.map((r) => r.getAttribute('data-search')));
    expect(names).toEqual(['Broken', 'CRM', 'Old']);
    expect(await page.$eval(`${row('Broken')}`, (r: any) => r.classList.contains('error'))).toBe(true);
    await shot('webhooks-list');
  });

  it('saves a new hook from the New form', async () => {
    await clickSettled('#webhooks_wrapper .new-webhook');
    await page.waitForSelector('#webhook_edition_form input[name="name"]', { visible: true });
    await page.type('#webhook_edition_form input[name="name"]', 'Inventory');
    // the form refuses loopback and private addresses (its URL check), so a public-looking one
    await page.type('#webhook_edition_form input[name="uri"]', 'https://inventory.example.com/hooks/calls');
    await page.select('#webhook_edition_form select[name="hook"]', 'channel_destroy');
    await page.select('#webhook_edition_form select[name="http_verb"]', 'post');
    await shot('new-webhook-form');
    await clickSettled('.webhook-edition .action-bar .save');
    await page.waitForSelector(row('Inventory'), { visible: true });
    const listed = (await api('GET', '/webhooks')).body.data.find((h: any) => h.name === 'Inventory');
    expect(listed).toMatchObject({ hook: 'channel_destroy', uri: 'https://inventory.example.com/hooks/calls', enabled: true });
    hooks.Inventory = listed.id;
    expect((await api('GET', `/webhooks/${listed.id}`)).body.data).toMatchObject({ http_verb: 'post', retries: expect.any(Number) });
    await shot('new-webhook-saved');
  });

  it('toggles a hook off with its switch', async () => {
    await clickSettled(`${row('CRM')} .webhook-status-toggle label.monster-switch`);
    await until(`document.querySelector('${row('CRM')}').classList.contains('disabled')`);
    for (let i = 0; i < 50 && (await api('GET', `/webhooks/${hooks.CRM}`)).body.data.enabled !== false; i++) await new Promise((r) => setTimeout(r, 100));
    const crm = (await api('GET', `/webhooks/${hooks.CRM}`)).body.data;
    expect(crm.enabled).toBe(false);
    expect(crm.disable_reason).toBeUndefined();
    await shot('crm-toggled-off');
  });

  it("opens a hook's request log (its delivery attempts)", async () => {
    await clickSettled(`${row('CRM')} .webhook-actions .history`);
    await page.waitForSelector('#webhooks_attempts_grid tbody tr td', { visible: true });
    const text = await page.$eval('#webhooks_attempts_grid tbody', (t: any) => t.innerText);
    expect(text).toMatch(/POST/);
    expect(calls.some((c) => c.path === `/v2/accounts/${srv.master.account_id}/webhooks/${hooks.CRM}/attempts` && c.status === 200)).toBe(true);
    await shot('crm-request-log');
    // one attempt in full: what was sent and what the receiver answered
    await clickSettled('#webhooks_attempts_grid .details-attempt');
    await settled('.ui-dialog #jsoneditor');
    expect(await page.$eval('.ui-dialog #jsoneditor', (e: any) => e.innerText)).toContain('success');
    await shot('crm-attempt-details');
    await clickSettled('.ui-dialog .ui-dialog-titlebar-close');
    await page.waitForSelector('.ui-dialog #jsoneditor', { hidden: true });
    await clickSettled('.webhook-attempts .back-button');
    await page.waitForSelector(row('CRM'), { visible: true });
  });

  it('"Re-enable all failing webhooks" turns the hook the server disabled back on', async () => {
    expect((await api('GET', `/webhooks/${hooks.Broken}`)).body.data.enabled).toBe(false);
    await shot('before-reenable');
    await clickSettled('#webhooks_wrapper .reenable-button');
    await until(`(() => { const r = document.querySelector('${row('Broken')}'); return r && !r.classList.contains('error') && !r.classList.contains('disabled'); })()`);
    expect((await api('GET', `/webhooks/${hooks.Broken}`)).body.data.enabled).toBe(true);
    // the one turned off by hand stays off: only failing hooks are re-enabled
    expect((await api('GET', `/webhooks/${hooks.CRM}`)).body.data.enabled).toBe(false);
    await shot('after-reenable');
  });

  it('deletes a hook', async () => {
    await clickSettled(`${row('Old')} .webhook-actions .delete`);
    await page.waitForSelector(`${row('Old')} .confirm-delete`, { visible: true });
    await shot('delete-confirm');
    await clickSettled(`${row('Old')} .confirm-delete`);
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

  it("a whitelabel document claiming the UI's domain brands it: its logo in the top bar", async () => {
    // a logo as Monster UI's branding app uploads one: a data: URL (drawn here in the page)
    const logo = await page.evaluate(() => {
      const canvas = (globalThis as any).document.createElement('canvas');
      canvas.width = 240;
      canvas.height = 48;
      const g = canvas.getContext('2d');
      g.fillStyle = '#ffb000';
      g.fillRect(0, 0, 240, 48);
      g.fillStyle = '#000';
      g.font = 'bold 28px sans-serif';
      g.fillText('LAB VOICE', 28, 34);
      return canvas.toDataURL('image/png');
    });
    const domain = new URL(ui.url).hostname;
    expect((await api('PUT', '/whitelabel', { company_name: 'Lab Voice', domain })).status).toBe(201);
    const up = await fetch(`${srv.url}/v2/accounts/${srv.master.account_id}/whitelabel/logo`, {
      method: 'POST',
      headers: { 'X-Auth-Token': srv.adminToken, 'Content-Type': 'application/x-base64' },
      body: logo,
    });
    expect(up.status).toBe(200);
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForSelector(row('Inventory'), { visible: true, timeout: 30_000 });
    await until(`getComputedStyle(document.querySelector('#main_topbar_brand')).backgroundImage.includes('/v2/whitelabel/${domain}/logo')`);
    expect(calls.some((c) => c.path === `/v2/whitelabel/${domain}/logo` && c.status === 200)).toBe(true);
    expect(calls.some((c) => c.path === `/v2/whitelabel/${domain}` && c.status === 200)).toBe(true);
    await shot('whitelabel-logo');
  });

  describe.skipIf(!ACCOUNTS_APP)('Account Manager', () => {
    let acme: string;
    const accountRow = (name: string) => `.account-list-element[data-name="${name}"]`;

    it('lists the sub-accounts', async () => {
      const sub = await srv.request('PUT', `/v2/accounts/${srv.master.account_id}`, { token: srv.adminToken, data: { name: 'Acme Lab', realm: 'acme.lab.example' } });
      expect(sub.status).toBe(201);
      acme = sub.body.data.id;
      await page.evaluate(() => {
        (globalThis as any).location.hash = '#/apps/accounts';
      });
      await settled(accountRow('Acme Lab'));
      await shot('accounts-list');
    });

    it("opens an account's settings (classifiers, multi-factor, security, its balance)", async () => {
      await clickSettled(accountRow('Acme Lab'));
      await settled('#accountsmanager_overview_tab .settings-item[data-name="accountsmanager_account_status"] .settings-link');
      expect(await page.$eval('#accountsmanager_account_name', (e: any) => e.value)).toBe('Acme Lab');
      for (const path of ['phone_numbers/classifiers', 'multi_factor', 'security', 'ledgers/total']) {
        expect(calls.some((c) => c.path === `/v2/accounts/${acme}/${path}` && c.status === 200), path).toBe(true);
      }
      await shot('account-settings');
    });

    it("adds credit from the limits tab: a ledger the reseller writes, the balance shown", async () => {
      await clickSettled('.account-tabs .tab-limits a');
      await clickSettled('#accountsmanager_limits_tab .change-credits');
      await settled('.ui-dialog #amount_add');
      await page.type('.ui-dialog #amount_add', '25');
      await clickSettled('.ui-dialog .add-credit');
      await until(`(document.querySelector('.ui-dialog .add-credits-header .value') || {}).textContent?.includes('25')`);
      expect((await srv.request('GET', `/v2/accounts/${acme}/ledgers/total`, { token: srv.adminToken })).body.data).toEqual({ amount: 25 });
      await shot('account-credit-added');
      await clickSettled('.ui-dialog .ui-dialog-titlebar-close');
    });

    it('deletes the account once DELETE is typed', async () => {
      await clickSettled('.account-tabs .tab-overview a');
      await clickSettled('#accountsmanager_overview_tab .settings-item[data-name="accountsmanager_account_status"] .settings-link');
      await clickSettled('#accountsmanager_delete_account_btn');
      await settled('.ui-dialog #delete_input');
      await page.type('.ui-dialog #delete_input', 'DELETE');
      await clickSettled('.ui-dialog #confirm_button');
      await page.waitForSelector(accountRow('Acme Lab'), { hidden: true });
      expect((await srv.request('GET', `/v2/accounts/${acme}`, { token: srv.adminToken })).status).toBe(404);
      await shot('account-deleted');
    });
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

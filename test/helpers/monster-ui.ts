import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What the opt-in Monster UI test needs and the project does not depend on: a headless browser
 * driver that brings no browser (`puppeteer-core`), the Sass compiler and 2600Hz's design
 * system styles Monster UI imports. Installed once into `dir` (a cache outside the project).
 */
export const E2E_PACKAGES = ['puppeteer-core@25', 'sass@1', '@2600hz/sds-core@2', '@2600hz/sds-themes@2'];

/** The e2e packages: a `require` that finds them, and the folder they are in. */
export interface E2eDeps {
  require: NodeJS.Require;
  modules: string;
}

/** Installs the packages into `dir` unless they are there. */
export function e2eDeps(dir: string): E2eDeps {
  const marker = join(dir, 'node_modules', '.tel-e2e-packages');
  const wanted = E2E_PACKAGES.join(' ');
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== wanted) {
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    // no install scripts: nothing here needs one, and puppeteer-core downloads no browser anyway
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', ...E2E_PACKAGES], { cwd: dir, stdio: 'pipe' });
    writeFileSync(marker, wanted);
  }
  return { require: createRequire(join(dir, 'package.json')), modules: join(dir, 'node_modules') };
}

/** Where Monster UI and its Webhooks app are, and where the UI should find the API. */
export interface MonsterUiBuild {
  /** a Monster UI checkout (its `src` is copied) */
  monsterUi: string;
  /** a checkout of the Webhooks app (monster-ui-webhooks), installed as `apps/webhooks` */
  webhooksApp: string;
  /** other apps' checkouts by the name they are installed as (`accounts`, `voip`, `callflows`) */
  apps?: Record<string, string>;
  /** the API's `/v2/` URL: Monster UI's `api.default` */
  apiUrl: string;
  /** where the built UI goes */
  outDir: string;
  /** the e2e packages (sass, the design system styles) */
  deps: E2eDeps;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Builds Monster UI as its development build does, without gulp or node-sass: `src` copied, the
 * Webhooks app copied into `apps/webhooks`, every SCSS file but partials compiled beside itself
 * (`~package/...` imports resolved in the e2e packages), the build flags Monster UI reads at start,
 * and `js/config.js` pointing `api.default` at the API.
 */
export function buildMonsterUi(b: MonsterUiBuild): void {
  cpSync(join(b.monsterUi, 'src'), b.outDir, { recursive: true });
  for (const [name, dir] of Object.entries({ webhooks: b.webhooksApp, ...b.apps })) {
    cpSync(dir, join(b.outDir, 'apps', name), { recursive: true, filter: (src) => !src.split(sep).includes('.git') && !src.split(sep).includes('node_modules') });
  }
  const sass = b.deps.require('sass');
  const tilde = {
    findFileUrl: (url: string) => (url.startsWith('~') ? pathToFileURL(join(b.deps.modules, url.slice(1))) : null),
  };
  for (const file of filesUnder(b.outDir)) {
    if (extname(file) !== '.scss' || file.split(sep).pop()!.startsWith('_')) continue;
    const options = { importers: [tilde], style: 'expanded', logger: sass.Logger.silent };
    let css: string;
    try {
      css = sass.compile(file, options).css;
    } catch (e) {
      // Monster UI builds with libsass, which passes a calc() it cannot read through as text
      // (Callflows has `calc(100%-241px)`); dart-sass refuses the file: such a calc() is given
      // to it as that same text, which the browser ignores as it does libsass's output.
      const source = readFileSync(file, 'utf8');
      const kept = source.replace(/\bcalc\(([^()\s]*[^\s(][+-][^\s)][^()\s]*)\)/g, (_, inner) => `#{"calc(${inner})"}`);
      if (kept === source) throw e;
      css = sass.compileString(kept, { ...options, url: pathToFileURL(file) }).css;
    }
    writeFileSync(file.replace(/\.scss$/, '.css'), css);
  }
  const version = JSON.parse(readFileSync(join(b.monsterUi, 'package.json'), 'utf8')).version ?? 'dev';
  writeFileSync(join(b.outDir, 'VERSION'), version);
  writeFileSync(join(b.outDir, 'build-config.json'), JSON.stringify({ type: 'development' }));
  for (const app of readdirSync(join(b.outDir, 'apps'))) {
    writeFileSync(join(b.outDir, 'apps', app, 'app-build-config.json'), JSON.stringify({ version: 'standard' }));
  }
  writeFileSync(
    join(b.outDir, 'js', 'config.js'),
    `define({\n\tapi: {\n\t\t'default': ${JSON.stringify(b.apiUrl)}\n\t},\n\twhitelabel: {\n\t\tcompanyName: 'tel',\n\t\tapplicationTitle: 'Monster UI on tel'\n\t}\n});\n`,
  );
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
};

/** Serves a directory's files on 127.0.0.1 (a port of its own); answers its URL and the server. */
export async function serveStatic(root: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (relative(root, file).startsWith('..') || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Ways of driving Monster UI in a page (a puppeteer `Page`) as a user would. */
export interface UiDriver {
  /** waits until what `selector` names is visible and has stopped moving (Monster UI animates its panels) */
  settled(selector: string, timeout?: number): Promise<void>;
  /** closes any guided tour an app opens on a first visit, waits for `selector` to settle, clicks it */
  clickSettled(selector: string): Promise<void>;
  /** waits until `check` (run in the page) is true */
  until(check: string, timeout?: number): Promise<void>;
  /** drags what `from` names onto what `to` names with the mouse (jQuery UI's sortables and droppables) */
  drag(from: string, to: string): Promise<void>;
  /** types each value into the field its selector names, in order */
  fill(fields: Record<string, string>): Promise<void>;
  /** the `data-id` of the first element `selector` names whose text contains `text` */
  idOf(selector: string, text: string): Promise<string>;
  /** waits for a dialog to show whose text contains `text`, and closes it */
  closeDialog(text: string): Promise<void>;
  /** whether a dialog shows */
  dialogShown(): Promise<boolean>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run in the page: the dialog shown whose text contains `t` (closed dialogs may stay in the page, hidden). */
function shownDialog(t: string): unknown {
  const g = globalThis as any;
  return [...g.document.querySelectorAll('.ui-dialog')].find((d: any) => d.getClientRects().length > 0 && g.getComputedStyle(d).display !== 'none' && d.innerText.includes(t));
}

/** A UiDriver over a puppeteer page. */
export function uiDriver(page: any): UiDriver {
  const settled = async (selector: string, timeout = 30_000) => {
    await page.waitForSelector(selector, { visible: true, timeout });
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
      await pause(100);
    }
  };
  // SmartPBX greets a first visit of each of its pages with a tour (intro.js) over the page
  const closeTours = async () => {
    for (let i = 0; i < 10; i++) {
      const skip = await page.$('.introjs-skipbutton');
      if (!skip || !(await skip.isVisible())) return;
      await skip.click();
      await pause(500);
    }
  };
  return {
    settled,
    async clickSettled(selector) {
      await closeTours();
      await settled(selector);
      // a tour opens once its page has drawn: perhaps while the element settled
      await closeTours();
      await page.click(selector);
    },
    async until(check, timeout = 30_000) {
      await page.waitForFunction(check, { timeout, polling: 100 });
    },
    async drag(from, to) {
      await closeTours();
      await settled(from);
      const a = await (await page.$(from)).boundingBox();
      const b = await (await page.$(to)).boundingBox();
      const [sx, sy, tx, ty] = [a.x + Math.min(10, a.width / 2), a.y + a.height / 2, b.x + Math.min(30, b.width / 2), b.y + Math.min(20, b.height / 2)];
      await page.mouse.move(sx, sy);
      await page.mouse.down();
      for (let i = 1; i <= 15; i++) await page.mouse.move(sx + ((tx - sx) * i) / 15, sy + ((ty - sy) * i) / 15);
      await pause(200);
      await page.mouse.up();
    },
    async fill(fields) {
      for (const [selector, value] of Object.entries(fields)) await page.type(selector, value);
    },
    async idOf(selector, text) {
      await page.waitForFunction(
        (s: string, t: string) => [...(globalThis as any).document.querySelectorAll(s)].some((e: any) => e.textContent.includes(t)),
        { timeout: 30_000, polling: 100 },
        selector,
        text,
      );
      return page.$$eval(selector, (els: any[], t: string) => els.find((e) => e.textContent.includes(t)).getAttribute('data-id'), text);
    },
    async closeDialog(text) {
      await page.waitForFunction(shownDialog, { timeout: 30_000, polling: 100 }, text);
      await pause(300);
      // the same message may be shown twice (Account Manager's "email sent" is): each is closed
      for (let i = 0; i < 5; i++) {
        const dialog = await page.evaluateHandle(shownDialog, text);
        if (!(await dialog.evaluate((d: unknown) => Boolean(d)))) return;
        // an alert hides its title bar's button and shows a Close button of its own
        for (const button of ['.ui-dialog-titlebar-close', '#close_button']) {
          const b = await dialog.$(button);
          if (b && (await b.isVisible())) {
            await b.click();
            break;
          }
        }
        await page.waitForFunction((d: any) => !d.isConnected || d.getClientRects().length === 0, { timeout: 30_000, polling: 100 }, dialog);
      }
    },
    async dialogShown() {
      const dialog = await page.evaluateHandle(shownDialog, '');
      return dialog.evaluate((d: unknown) => Boolean(d));
    },
  };
}

import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { stripServerFields } from '../documents/store.js';
import { newId, nextRevision } from '../../util/ids.js';
import { getAccount, masterAccount } from '../accounts/service.js';
import { findUser, isAccountAdmin, type Actor } from '../users/service.js';
import { DEFAULT_LANGUAGE, validateApp, validateBlacklist, validatePermissions } from './schema.js';
import { findAppIcon, removeAppFiles, saveAppFiles, screenshotCount, screenshotName, WEBHOOKS_APP_ID, type AppFiles } from './files.js';

export { WEBHOOKS_APP_ID };

/** An app of the catalogue. */
export interface App {
  id: string;
  name: string;
  doc: Record<string, unknown>;
  rev: string;
  created: number;
  modified: number;
}

interface AppRow {
  id: string;
  name: string;
  doc: string;
  rev: string;
  created: number;
  modified: number;
}

function fromRow(r: AppRow): App {
  return { id: r.id, name: r.name, doc: JSON.parse(r.doc), rev: r.rev, created: r.created, modified: r.modified };
}

/** The catalogue, oldest first. */
export function listApps(core: Core): App[] {
  return (stmt(core.db, 'SELECT * FROM apps ORDER BY created, name').all() as unknown as AppRow[]).map(fromRow);
}

/** A catalogue app by id or name, or undefined. */
export function findApp(core: Core, idOrName: string): App | undefined {
  const r = stmt(core.db, 'SELECT * FROM apps WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1').get(idOrName, idOrName, idOrName) as
    | AppRow
    | undefined;
  return r ? fromRow(r) : undefined;
}

/** A catalogue app by id or name, or the 404. */
export function getApp(core: Core, idOrName: string): App {
  const app = findApp(core, idOrName);
  if (!app) throw errors.badIdentifier(idOrName);
  return app;
}

/** The catalogue app as `tel apps` shows it: its document and id. */
export function appJson(app: App): Record<string, unknown> {
  return { ...app.doc, name: app.name, id: app.id };
}

/** Adds an app (and its icon and screenshots) to the catalogue; a name already there is refused. The webhooks app gets its id back. */
export function addApp(core: Core, input: Record<string, unknown>, files: AppFiles = {}): App {
  const doc = validateApp(stripServerFields(input));
  const name = String(doc.name);
  const id = name === 'webhooks' ? WEBHOOKS_APP_ID : newId();
  return transaction(core.db, () => {
    if (findApp(core, name) || findApp(core, id)) {
      throw errors.invalidField('name', 'unique', 'An app of this name is already in the catalogue', { cause: name });
    }
    const { name: _name, ...rest } = doc;
    const body = JSON.stringify(rest);
    const now = Date.now();
    const rev = nextRevision(undefined, body);
    stmt(core.db, 'INSERT INTO apps (id, name, doc, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?)').run(id, name, body, rev, now, now);
    saveAppFiles(core, id, files);
    const app = { id, name, doc: rest, rev, created: now, modified: now };
    // offered to the master's users at once, as a master made after it would have it
    const master = masterAccount(core);
    if (master) installDefault(core, master.id, app);
    return app;
  });
}

/** Removes an app from the catalogue, and from every account that installed it. */
export function removeApp(core: Core, idOrName: string): App {
  return transaction(core.db, () => {
    const app = getApp(core, idOrName);
    stmt(core.db, 'DELETE FROM account_apps WHERE app_id = ?').run(app.id);
    stmt(core.db, 'DELETE FROM apps WHERE id = ?').run(app.id);
    removeAppFiles(core, app.id);
    return app;
  });
}

/** What an account set for one installed app: `{name, allowed_users, users, …}`. */
type Permissions = Record<string, unknown>;

function installedApps(core: Core, accountId: string): Map<string, Permissions> {
  const rows = stmt(core.db, 'SELECT app_id, doc FROM account_apps WHERE account_id = ?').all(accountId) as { app_id: string; doc: string }[];
  return new Map(rows.map((r) => [r.app_id, JSON.parse(r.doc) as Permissions]));
}

function installedApp(core: Core, accountId: string, appId: string): Permissions | undefined {
  const r = stmt(core.db, 'SELECT doc FROM account_apps WHERE account_id = ? AND app_id = ?').get(accountId, appId) as { doc: string } | undefined;
  return r ? (JSON.parse(r.doc) as Permissions) : undefined;
}

/**
 * An app as an account sees it: the catalogue document with what the account set over it, the
 * owner of the catalogue (the master account) and the API the app talks to — its own `api_url`,
 * else `apiUrl`, the server's `/v2/` URL as the client reached it.
 */
function accountView(app: App, perms: Permissions | undefined, masterId: string | undefined, apiUrl: string | undefined): Record<string, unknown> {
  const view: Record<string, unknown> = { ...app.doc, ...permissionFields(perms ?? {}), name: app.name, id: app.id };
  if (masterId) view.account_id = masterId;
  const url = app.doc.api_url ?? apiUrl;
  if (url !== undefined) view.api_url = url;
  view.users ??= [];
  view.tags ??= [];
  view.masqueradable ??= true;
  return view;
}

/** The fields of an app in the account's listing (Kazoo's, those without a value left out). */
const LISTING_FIELDS = ['id', 'name', 'i18n', 'tags', 'api_url', 'source_url', 'account_id', 'users', 'allowed_users', 'masqueradable', 'phase', 'extends'];

/**
 * An app as the apps store answers it: `allowed_users` only once the account installed it (the
 * catalogue's says who may use it until then, but Kazoo's answer has no such key, and Monster UI
 * tells an installed app by it: an install then POSTs instead of PUTting).
 */
function shown(view: Record<string, unknown>, perms: Permissions | undefined): Record<string, unknown> {
  if (perms?.allowed_users === undefined) delete view.allowed_users;
  return view;
}

/** `GET /v2/accounts/{id}/apps_store`: every app the account may use, with its permissions. */
export function accountAppsListing(core: Core, accountId: string, apiUrl?: string): Record<string, unknown>[] {
  getAccount(core, accountId);
  const installed = installedApps(core, accountId);
  const masterId = masterAccount(core)?.id;
  return offeredApps(core, accountId).map((app) => {
    const view = shown(accountView(app, installed.get(app.id), masterId, apiUrl), installed.get(app.id));
    const entry: Record<string, unknown> = {};
    for (const field of LISTING_FIELDS) if (view[field] !== undefined) entry[field] = view[field];
    return entry;
  });
}

/** `GET /v2/accounts/{id}/apps_store/{app_id}`: the whole app as the account sees it, or the 404. */
export function accountApp(core: Core, accountId: string, appId: string, apiUrl?: string): Record<string, unknown> {
  const app = offeredApp(core, accountId, appId, () => errors.badIdentifier(appId));
  const perms = installedApp(core, accountId, app.id);
  const view = shown(accountView(app, perms, masterAccount(core)?.id, apiUrl), perms);
  // the names of its files (…/icon, …/screenshot/{n}), as Kazoo's app documents name their attachments
  if (findAppIcon(core, app.id)) view.icon = 'icon';
  const shots = screenshotCount(core, app.id);
  if (shots > 0) view.screenshots = Array.from({ length: shots }, (_, i) => screenshotName(i));
  return view;
}

/** The app of this id (ids only: the API names apps by id), or the error `missing` makes. */
export function catalogueApp(core: Core, appId: string, missing: () => Error): App {
  const app = findApp(core, appId);
  if (!app || app.id !== appId) throw missing();
  return app;
}

/** The app of this id when the account may see it (in the catalogue, not blacklisted), or the error `missing` makes. */
function offeredApp(core: Core, accountId: string, appId: string, missing: () => Error): App {
  const app = catalogueApp(core, appId, missing);
  if (blacklistOf(core, accountId).includes(app.id)) throw missing();
  return app;
}

/** The catalogue less the apps blacklisted for the account. */
function offeredApps(core: Core, accountId: string): App[] {
  const blacklist = new Set(blacklistOf(core, accountId));
  return listApps(core).filter((app) => !blacklist.has(app.id));
}

/** The ids of the apps kept from an account (Kazoo's apps_store `blacklist`). */
export function blacklistOf(core: Core, accountId: string): string[] {
  const r = stmt(core.db, 'SELECT blacklist FROM apps_blacklists WHERE account_id = ?').get(accountId) as { blacklist: string } | undefined;
  return r ? (JSON.parse(r.blacklist) as string[]) : [];
}

/**
 * Who may read and keep apps from an account (Kazoo's `validate_blacklist`): an account strictly
 * above it, so that an account's own users, admins included, can neither read nor take back what
 * was kept from them; a change also needs an admin acting from a reseller (Kazoo's "need to be
 * reseller"). A super-duper admin may do both on any account.
 */
export function checkBlacklistAccess(core: Core, actor: Actor & { account: { reseller: boolean } }, accountId: string, write: boolean): void {
  if (actor.isSuperduper) return;
  if (!getAccount(core, accountId).tree.includes(actor.accountId)) {
    throw errors.forbidden("an account's apps blacklist is read and changed from an account above it");
  }
  if (write && (!actor.account.reseller || !isAccountAdmin(core, actor))) throw errors.forbidden("changing an account's apps blacklist needs an admin of a reseller above it");
}

/** `POST …/apps_store/blacklist`: replaces the apps kept from the account; answers `{blacklist}`. */
export function setBlacklist(core: Core, accountId: string, input: Record<string, unknown>): { blacklist: string[] } {
  const { blacklist } = validateBlacklist(input);
  return transaction(core.db, () => {
    getAccount(core, accountId);
    if (blacklist.length === 0) stmt(core.db, 'DELETE FROM apps_blacklists WHERE account_id = ?').run(accountId);
    else {
      stmt(core.db, 'INSERT OR REPLACE INTO apps_blacklists (account_id, blacklist, modified) VALUES (?, ?, ?)').run(accountId, JSON.stringify(blacklist), Date.now());
    }
    return { blacklist };
  });
}

/** Installing, configuring and removing apps needs an admin of the account (Kazoo lets any user). */
export function checkAppsWrite(core: Core, actor: Actor): void {
  if (!isAccountAdmin(core, actor)) throw errors.forbidden('installing and configuring apps needs an admin of the account');
}

/** An app the account may not install: one the catalogue does not hold (403, as Kazoo answers). */
function notAllowed(appId: string): Error {
  return errors.forbidden('no app of this id is offered to the account', { details: appId });
}

/**
 * What an installation sets over the catalogue: who may use the app, and the UI's metadata. The
 * rest of an app (its label, `source_url` — where Monster UI loads the app's code from —,
 * `api_url`, …) is the catalogue's, whatever an account's admin sends.
 */
const PERMISSION_FIELDS = ['allowed_users', 'users', 'ui_metadata'] as const;

function permissionFields(perms: Permissions): Permissions {
  const out: Permissions = {};
  for (const f of PERMISSION_FIELDS) if (perms[f] !== undefined) out[f] = perms[f];
  return out;
}

function writeInstalled(core: Core, accountId: string, app: App, input: Record<string, unknown>): Permissions {
  const perms: Permissions = { ...permissionFields(validatePermissions(stripServerFields(input))), name: app.name };
  perms.users = (perms.users as unknown[]).map((u) => (typeof u === 'string' ? { id: u } : u));
  stmt(core.db, 'INSERT OR REPLACE INTO account_apps (account_id, app_id, doc, modified) VALUES (?, ?, ?, ?)').run(
    accountId,
    app.id,
    JSON.stringify(perms),
    Date.now(),
  );
  return perms;
}

/**
 * A new master account has the catalogue's apps installed for those its `allowed_users` names
 * (the webhooks app for all), as an operator installs them from Monster UI's App Exchange on a
 * new Kazoo: its users find them in their app launcher; an app added to the catalogue later is
 * installed on it the same way. Other accounts install apps themselves.
 */
export function installDefaultApps(core: Core, accountId: string): void {
  for (const app of listApps(core)) installDefault(core, accountId, app);
}

function installDefault(core: Core, accountId: string, app: App): void {
  const who = app.doc.allowed_users;
  if ((who === 'all' || who === 'admins') && !installedApp(core, accountId, app.id)) writeInstalled(core, accountId, app, { allowed_users: who, users: [] });
}

/** `PUT …/apps_store/{app_id}`: installs an app on the account with who may use it. */
export function installApp(core: Core, accountId: string, appId: string, input: Record<string, unknown>): Permissions {
  return transaction(core.db, () => {
    getAccount(core, accountId);
    const app = offeredApp(core, accountId, appId, () => notAllowed(appId));
    if (installedApp(core, accountId, app.id)) throw errors.appInstalled();
    return writeInstalled(core, accountId, app, input);
  });
}

/** `POST …/apps_store/{app_id}`: replaces who of the account may use an installed app. */
export function configureApp(core: Core, accountId: string, appId: string, input: Record<string, unknown>): Permissions {
  return transaction(core.db, () => {
    getAccount(core, accountId);
    const app = offeredApp(core, accountId, appId, () => notAllowed(appId));
    if (!installedApp(core, accountId, app.id)) throw errors.appNotInstalled();
    return writeInstalled(core, accountId, app, input);
  });
}

/** `DELETE …/apps_store/{app_id}`: removes an app from the account (back to what the catalogue says). */
export function uninstallApp(core: Core, accountId: string, appId: string): void {
  transaction(core.db, () => {
    getAccount(core, accountId);
    const app = catalogueApp(core, appId, () => notAllowed(appId));
    if (!installedApp(core, accountId, app.id)) throw errors.appNotInstalled();
    stmt(core.db, 'DELETE FROM account_apps WHERE account_id = ? AND app_id = ?').run(accountId, app.id);
  });
}

/** Whether a user may use an app under these permissions; a token without a user may use them all. */
function userMayUse(core: Core, accountId: string, ownerId: string | undefined, view: Record<string, unknown>): boolean {
  if (!ownerId) return true;
  switch (view.allowed_users) {
    case 'all':
      return true;
    case 'admins':
      return findUser(core, accountId, ownerId)?.doc.priv_level === 'admin';
    case 'specific':
      return (view.users as unknown[]).some((u) => (typeof u === 'string' ? u : (u as { id?: unknown })?.id) === ownerId);
    default:
      return false;
  }
}

/**
 * The `apps` of a login answer: the apps this user of the account may use, each as
 * `{id, name, api_url, source_url?, label}` with the label in `language` (else en-US).
 */
export function userApps(core: Core, accountId: string, ownerId: string | undefined, language: string, apiUrl?: string): Record<string, unknown>[] {
  const installed = installedApps(core, accountId);
  const masterId = masterAccount(core)?.id;
  const out: Record<string, unknown>[] = [];
  for (const app of offeredApps(core, accountId)) {
    const view = accountView(app, installed.get(app.id), masterId, apiUrl);
    if (!userMayUse(core, accountId, ownerId, view)) continue;
    const i18n = (view.i18n ?? {}) as Record<string, { label?: string }>;
    const entry: Record<string, unknown> = { id: app.id, name: app.name };
    if (view.api_url !== undefined) entry.api_url = view.api_url;
    if (view.source_url !== undefined) entry.source_url = view.source_url;
    entry.label = i18n[language]?.label ?? i18n[DEFAULT_LANGUAGE]?.label ?? app.name;
    out.push(entry);
  }
  return out;
}

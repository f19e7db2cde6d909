import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt } from '../../store/db.js';
import { deleteAttachments, findAttachment, putAttachment, type StoredFile } from '../documents/files.js';
import { WEBHOOKS_ICON_PNG } from './webhooks-icon.js';

/** The webhooks app every database offers (its id never changes; see the `1700-apps` migration). */
export const WEBHOOKS_APP_ID = '9b183e89feb4bbda0141e9e3fccbe6bd';

/** The owner the catalogue's files are kept under (no account: they go with their app). */
const CATALOGUE = 'catalogue';

/** An app's files, as `tel apps add` takes them. */
export interface AppFiles {
  icon?: StoredFile;
  screenshots?: StoredFile[];
}

/** The attachment name of an app's screenshot (its doc's `screenshots` list names them). */
export const screenshotName = (index: number) => `screenshot-${index}`;

/** Stores an app's icon and screenshots (in the caller's transaction). */
export function saveAppFiles(core: Core, appId: string, files: AppFiles): void {
  if (files.icon) putAttachment(core, CATALOGUE, appId, 'icon', files.icon);
  (files.screenshots ?? []).forEach((f, i) => putAttachment(core, CATALOGUE, appId, screenshotName(i), f));
}

/** Removes every file of an app. */
export function removeAppFiles(core: Core, appId: string): void {
  deleteAttachments(core, appId);
}

/** An app's icon: the one given when it was added; the webhooks app has its own. Undefined when none. */
export function findAppIcon(core: Core, appId: string): StoredFile | undefined {
  return findAttachment(core, appId, 'icon') ?? (appId === WEBHOOKS_APP_ID ? { contentType: 'image/png', bytes: WEBHOOKS_ICON_PNG } : undefined);
}

/** An app's screenshot by its index (from 0), or the 404. */
export function appScreenshot(core: Core, appId: string, index: string): StoredFile {
  const file = /^\d{1,4}$/.test(index) ? findAttachment(core, appId, screenshotName(Number(index))) : undefined;
  if (!file) throw errors.badIdentifier(`screenshot ${index}`);
  return file;
}

/** How many screenshots an app has. */
export function screenshotCount(core: Core, appId: string): number {
  return (stmt(core.db, "SELECT COUNT(*) n FROM doc_attachments WHERE doc_id = ? AND name LIKE 'screenshot-%'").get(appId) as { n: number }).n;
}

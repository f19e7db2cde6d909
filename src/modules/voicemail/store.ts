import type { Core } from '../../core-type.js';
import { stmt } from '../../store/db.js';
import { readKeysetPage, type CompoundKey, type Page, type PageQuery } from '../../store/pages.js';

/**
 * Voicemail messages, as Kazoo keeps them in an account's MODBs (`mailbox_message` documents):
 * one row a message, its `metadata` as Kazoo's `kzd_box_message:metadata/1` answers it, the box it
 * is in, its folder and when it was left (Gregorian seconds), so that a box's messages are listed
 * newest first one page at a time and counted by folder.
 */

/** Kazoo's folders of a message. */
export type Folder = 'new' | 'saved' | 'deleted';

/** One stored message. */
export interface VmMessage {
  /** `YYYYMM-` and 32 hex digits: also its `media_id` */
  id: string;
  accountId: string;
  boxId: string;
  folder: Folder;
  /** Gregorian seconds */
  timestamp: number;
  metadata: Record<string, unknown>;
}

interface Row {
  id: string;
  account_id: string;
  box_id: string;
  folder: Folder;
  timestamp: number;
  metadata: string;
}

function fromRow(r: Row): VmMessage {
  return { id: r.id, accountId: r.account_id, boxId: r.box_id, folder: r.folder, timestamp: r.timestamp, metadata: JSON.parse(r.metadata) };
}

/** Stores a new message. */
export function insertMessage(core: Core, m: VmMessage): void {
  stmt(core.db, 'INSERT INTO vm_messages (id, account_id, box_id, folder, timestamp, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    m.id,
    m.accountId,
    m.boxId,
    m.folder,
    m.timestamp,
    JSON.stringify({ ...m.metadata, folder: m.folder }),
    Date.now(),
  );
}

/** A message of an account, or undefined. */
export function findMessage(core: Core, accountId: string, id: string): VmMessage | undefined {
  const r = stmt(core.db, 'SELECT * FROM vm_messages WHERE id = ? AND account_id = ?').get(id, accountId) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** Writes a message's folder (in its metadata too). */
export function updateFolder(core: Core, m: VmMessage, folder: Folder): VmMessage {
  const metadata = { ...m.metadata, folder };
  stmt(core.db, 'UPDATE vm_messages SET folder = ?, metadata = ? WHERE id = ?').run(folder, JSON.stringify(metadata), m.id);
  return { ...m, folder, metadata };
}

/** Removes a message for good (Kazoo soft-deletes it: no listing shows it again). */
export function removeMessage(core: Core, id: string): void {
  stmt(core.db, 'DELETE FROM vm_messages WHERE id = ?').run(id);
}

/** Moves every message of a box to the `deleted` folder (a deleted box's, as Kazoo does). */
export function moveBoxToDeleted(core: Core, accountId: string, boxId: string): void {
  stmt(core.db, `UPDATE vm_messages SET folder = 'deleted', metadata = json_set(metadata, '$.folder', 'deleted') WHERE account_id = ? AND box_id = ?`).run(accountId, boxId);
}

/** A box's messages by folder. */
export type FolderCounts = Record<Folder, number>;

/**
 * Boxes' messages by folder, as Kazoo's `count_per_box_folder` view counts them (one range of the
 * box index each, in one statement): a box that holds none, in any folder, is not in the map.
 */
export function folderCounts(core: Core, accountId: string, boxIds: string[]): Map<string, FolderCounts> {
  const counts = new Map<string, FolderCounts>();
  if (boxIds.length === 0) return counts;
  const count = (folder: Folder) => `(SELECT count(*) FROM vm_messages m WHERE m.account_id = ?1 AND m.box_id = json_each.value AND m.folder = '${folder}')`;
  const rows = stmt(core.db, `SELECT json_each.value AS box_id, ${count('new')} AS new, ${count('saved')} AS saved, ${count('deleted')} AS deleted FROM json_each(?2)`).all(
    accountId,
    JSON.stringify(boxIds),
  ) as unknown as ({ box_id: string } & FolderCounts)[];
  for (const r of rows) if (r.new + r.saved + r.deleted > 0) counts.set(r.box_id, { new: r.new, saved: r.saved, deleted: r.deleted });
  return counts;
}

/**
 * A page of an account's messages (of one box when `boxId` is given) by when they were left,
 * newest first unless `oldestFirst`, keyed by `[timestamp, id]`.
 */
export function messagesPage(core: Core, accountId: string, boxId: string | undefined, q: PageQuery<CompoundKey, VmMessage>, oldestFirst = false): Page<VmMessage, CompoundKey> {
  return readKeysetPage<Row, VmMessage>(
    core.db,
    {
      select: 'SELECT id, account_id, box_id, folder, timestamp, metadata FROM vm_messages',
      where: boxId === undefined ? ['account_id = ?'] : ['account_id = ?', 'box_id = ?'],
      args: boxId === undefined ? [accountId] : [accountId, boxId],
      order: ['timestamp', 'id'],
      descending: !oldestFirst,
      keyOf: (r) => [r.timestamp, r.id],
      item: fromRow,
    },
    q,
  );
}

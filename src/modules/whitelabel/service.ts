import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { stripServerFields } from '../documents/store.js';
import { nextRevision } from '../../util/ids.js';
import { getAccount } from '../accounts/service.js';
import { isAccountAdmin, type Actor } from '../users/service.js';
import type { FileKind, StoredImage } from './files.js';
import { validateWhitelabel } from './schema.js';

/** The id a whitelabel document answers with, as Kazoo's. */
export const WHITELABEL_ID = 'whitelabel';

/** An account's whitelabel document. */
export interface Whitelabel {
  accountId: string;
  domain?: string;
  doc: Record<string, unknown>;
  rev: string;
}

interface Row {
  account_id: string;
  domain: string | null;
  doc: string;
  rev: string;
}

function fromRow(r: Row): Whitelabel {
  return { accountId: r.account_id, domain: r.domain ?? undefined, doc: JSON.parse(r.doc), rev: r.rev };
}

/** The public JSON of a whitelabel document: its fields and `id` `whitelabel`. */
export function whitelabelJson(w: Whitelabel): Record<string, unknown> {
  return { ...w.doc, id: WHITELABEL_ID };
}

/** The account's whitelabel document, or undefined. */
export function findWhitelabel(core: Core, accountId: string): Whitelabel | undefined {
  const r = stmt(core.db, 'SELECT * FROM whitelabels WHERE account_id = ?').get(accountId) as Row | undefined;
  return r ? fromRow(r) : undefined;
}

/** The account's whitelabel document, or the 404 (`bad_identifier` `whitelabel`, as Kazoo). */
export function getWhitelabel(core: Core, accountId: string): Whitelabel {
  getAccount(core, accountId);
  const w = findWhitelabel(core, accountId);
  if (!w) throw errors.badIdentifier(WHITELABEL_ID);
  return w;
}

/** The whitelabel document that claimed `domain` (any letter case), or the 404 naming the domain. */
export function whitelabelByDomain(core: Core, domain: string): Whitelabel {
  const r = stmt(core.db, 'SELECT * FROM whitelabels WHERE domain = ?').get(domain.toLowerCase()) as Row | undefined;
  if (!r) throw errors.badIdentifier(domain);
  return fromRow(r);
}

/** Changing an account's whitelabel needs an admin of it (Kazoo lets any user of the account). */
export function checkWhitelabelWrite(core: Core, actor: Actor): void {
  if (!isAccountAdmin(core, actor)) throw errors.forbidden("changing the account's whitelabel needs an admin of the account");
}

/** Validates a document and stores it; a domain another account claimed is a 400 on `domain`. */
function save(core: Core, accountId: string, input: Record<string, unknown>, current: Whitelabel | undefined): Whitelabel {
  const doc = validateWhitelabel(input);
  const domain = typeof doc.domain === 'string' ? doc.domain.toLowerCase() : undefined;
  if (domain) {
    const owner = stmt(core.db, 'SELECT account_id FROM whitelabels WHERE domain = ?').get(domain) as { account_id: string } | undefined;
    if (owner && owner.account_id !== accountId) {
      throw errors.invalidField('domain', 'unique', 'White label domain is already in use', { cause: doc.domain });
    }
  }
  const body = JSON.stringify(doc);
  const rev = nextRevision(current?.rev, body);
  const now = Date.now();
  if (current) {
    stmt(core.db, 'UPDATE whitelabels SET domain = ?, doc = ?, rev = ?, modified = ? WHERE account_id = ?').run(domain ?? null, body, rev, now, accountId);
  } else {
    stmt(core.db, 'INSERT INTO whitelabels (account_id, domain, doc, rev, created, modified) VALUES (?, ?, ?, ?, ?, ?)').run(
      accountId,
      domain ?? null,
      body,
      rev,
      now,
      now,
    );
  }
  return { accountId, domain, doc, rev };
}

/** `PUT …/whitelabel`: the account's first whitelabel document; a second is a 409, as Kazoo's. */
export function createWhitelabel(core: Core, accountId: string, input: Record<string, unknown>): Whitelabel {
  return transaction(core.db, () => {
    getAccount(core, accountId);
    if (findWhitelabel(core, accountId)) throw errors.conflict();
    return save(core, accountId, stripServerFields(input), undefined);
  });
}

/** `POST …/whitelabel`: the document sent replaces the stored one, as Kazoo's (its files stay); `ifMatch` a revision. */
export function updateWhitelabel(core: Core, accountId: string, input: Record<string, unknown>, ifMatch?: string): Whitelabel {
  return transaction(core.db, () => {
    const current = getWhitelabel(core, accountId);
    if (ifMatch && ifMatch !== current.rev) throw errors.conflict();
    return save(core, accountId, stripServerFields(input), current);
  });
}

/** `DELETE …/whitelabel`: the document and its files, for good; answers what was removed. */
export function deleteWhitelabel(core: Core, accountId: string): Whitelabel {
  return transaction(core.db, () => {
    const current = getWhitelabel(core, accountId);
    stmt(core.db, 'DELETE FROM whitelabel_files WHERE account_id = ?').run(accountId);
    stmt(core.db, 'DELETE FROM whitelabels WHERE account_id = ?').run(accountId);
    return current;
  });
}

/** A stored logo or icon with its attachment name. */
export interface WhitelabelFile extends StoredImage {
  name: string;
}

/** The account's logo or icon, or the 404 naming the kind (as Kazoo). */
export function whitelabelFile(core: Core, accountId: string, kind: FileKind): WhitelabelFile {
  const r = stmt(core.db, 'SELECT name, content_type, bytes FROM whitelabel_files WHERE account_id = ? AND kind = ?').get(accountId, kind) as
    | { name: string; content_type: string; bytes: Uint8Array }
    | undefined;
  if (!r) throw errors.badIdentifier(kind);
  return { name: r.name, contentType: r.content_type, bytes: Buffer.from(r.bytes) };
}

/** Stores the account's logo or icon (replacing the one before); the account needs a whitelabel document first. */
export function saveWhitelabelFile(core: Core, accountId: string, kind: FileKind, file: WhitelabelFile): Whitelabel {
  return transaction(core.db, () => {
    const current = getWhitelabel(core, accountId);
    stmt(core.db, 'INSERT OR REPLACE INTO whitelabel_files (account_id, kind, name, content_type, bytes, modified) VALUES (?, ?, ?, ?, ?, ?)').run(
      accountId,
      kind,
      file.name,
      file.contentType,
      file.bytes,
      Date.now(),
    );
    return current;
  });
}

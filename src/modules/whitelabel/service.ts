import { domainToASCII } from 'node:url';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { stmt, transaction } from '../../store/db.js';
import { stripServerFields } from '../documents/store.js';
import { checkRevision, nextRevision } from '../../util/ids.js';
import { findAccount, getAccount } from '../accounts/service.js';
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

/** A host name: what a whitelabel domain is, and what a domains plan is made for. */
export const DOMAIN = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * A domain as tel keeps and compares whitelabel domains: its ASCII form (IDNA: letter case and
 * full-width forms folded, other scripts as punycode `xn--…`) without a trailing dot; undefined
 * when it is no host name (spaces, control or invisible characters, a port or path, empty labels),
 * so that one domain cannot be claimed twice under two spellings.
 */
export function normalizedDomain(raw: string): string | undefined {
  if (/[\s\p{C}/?#@:\\%]/u.test(raw)) return undefined;
  const ascii = domainToASCII(raw);
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  return DOMAIN.test(name) ? name : undefined;
}

/** The whitelabel document that claimed `domain` (however it is written), or the 404 naming the domain. */
export function whitelabelByDomain(core: Core, domain: string): Whitelabel {
  const name = normalizedDomain(domain);
  const r = name === undefined ? undefined : (stmt(core.db, 'SELECT * FROM whitelabels WHERE domain = ?').get(name) as Row | undefined);
  if (!r) throw errors.badIdentifier(domain);
  return fromRow(r);
}

/** Changing an account's whitelabel needs an admin of it (Kazoo lets any user of the account). */
export function checkWhitelabelWrite(core: Core, actor: Actor): void {
  if (!isAccountAdmin(core, actor)) throw errors.forbidden("changing the account's whitelabel needs an admin of the account");
}

/**
 * Whether an actor may claim domains: the login page of a domain is what everyone reaching it sees,
 * so only a super-duper admin or a reseller's admins give one (Kazoo whitelabels resellers). No
 * actor: the operator's own tools.
 */
function mayClaimDomains(core: Core, actor: Actor | undefined): boolean {
  return !actor || actor.isSuperduper || findAccount(core, actor.accountId)?.reseller === true;
}

/**
 * Takes `domain` for `accountId`: free, already its own, or claimed by an account below it (an
 * ancestor's claim wins, the descendant's document keeps the rest) or taken by a super-duper admin;
 * any other owner's claim is a 400 on `domain`.
 */
function claimDomain(core: Core, accountId: string, domain: string, shown: unknown, actor: Actor | undefined): void {
  const owner = stmt(core.db, 'SELECT * FROM whitelabels WHERE domain = ?').get(domain) as Row | undefined;
  if (!owner || owner.account_id === accountId) return;
  const below = findAccount(core, owner.account_id)?.tree.includes(accountId) ?? true;
  if (!below && !actor?.isSuperduper) {
    throw errors.invalidField('domain', 'unique', 'White label domain is already in use', { cause: shown });
  }
  const { domain: _taken, ...rest } = JSON.parse(owner.doc) as Record<string, unknown>;
  const body = JSON.stringify(rest);
  stmt(core.db, 'UPDATE whitelabels SET domain = NULL, doc = ?, rev = ?, modified = ? WHERE account_id = ?').run(
    body,
    nextRevision(owner.rev, body),
    Date.now(),
    owner.account_id,
  );
}

/** A document's `domain` as it is kept (normalizedDomain), or the 400 on `domain`. */
function claimableDomain(raw: string): string {
  const name = normalizedDomain(raw);
  if (name === undefined) {
    throw errors.invalidField('domain', 'invalid', 'a whitelabel domain is a host name: labels of letters, digits and hyphens, without spaces or control characters', { value: raw });
  }
  return name;
}

/** Validates a document and stores it; claiming a domain follows `claimDomain`'s rules. */
function save(core: Core, accountId: string, input: Record<string, unknown>, current: Whitelabel | undefined, actor: Actor | undefined): Whitelabel {
  const doc = validateWhitelabel(input);
  // the document keeps the domain as sent (as Kazoo's); what is claimed, and looked up, is its normal form
  const domain = typeof doc.domain === 'string' ? claimableDomain(doc.domain) : undefined;
  if (domain && domain !== current?.domain) {
    if (!mayClaimDomains(core, actor)) throw errors.forbidden('claiming a whitelabel domain needs a reseller or a super-duper admin');
    claimDomain(core, accountId, domain, doc.domain, actor);
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

/** `PUT …/whitelabel`: the account's first whitelabel document; a second is a 409, as Kazoo's. `actor`: who asks (none: the operator). */
export function createWhitelabel(core: Core, accountId: string, input: Record<string, unknown>, actor?: Actor): Whitelabel {
  return transaction(core.db, () => {
    getAccount(core, accountId);
    if (findWhitelabel(core, accountId)) throw errors.conflict();
    return save(core, accountId, stripServerFields(input), undefined, actor);
  });
}

/** `POST …/whitelabel`: the document sent replaces the stored one, as Kazoo's (its files stay); `ifMatch` a revision. */
export function updateWhitelabel(core: Core, accountId: string, input: Record<string, unknown>, ifMatch?: string, actor?: Actor): Whitelabel {
  return transaction(core.db, () => {
    const current = getWhitelabel(core, accountId);
    checkRevision(current.rev, ifMatch);
    return save(core, accountId, stripServerFields(input), current, actor);
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

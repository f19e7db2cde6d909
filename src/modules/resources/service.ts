import { isIPv4 } from 'node:net';
import type { Core } from '../../core-type.js';
import { errors, type ValidationErrors } from '../../errors.js';
import { compileValidator, throwIfErrors } from '../../schema/validate.js';
import { transaction, stmt } from '../../store/db.js';
import {
  deleteDoc,
  docsPage,
  filterDoc,
  findDoc,
  getDoc,
  insertDoc,
  listDocs,
  stripServerFields,
  updateDoc,
  type StoredDoc,
} from '../documents/store.js';
import { newId } from '../../util/ids.js';
import { isObject, mergePatch } from '../../util/json.js';
import type { CompoundKey, Page, PageQuery } from '../../store/pages.js';
import { RESOURCES_CONFIG } from '../../jobs/settings.js';
import { resourceSchema } from './schema.js';
import { MASKED } from '../webhooks/service.js';

/** Stored kind of resources in the documents table. */
export const RESOURCE_KIND = 'resource';

/** Where global resources are kept (Kazoo's `offnet` database); never a valid account id. */
export const GLOBAL_OWNER = 'offnet';

/** Whose resources a request means: an account's, or the global ones (no account). */
export interface Scope {
  accountId?: string;
}

const validator = compileValidator(resourceSchema);

function ownerOf(scope: Scope): string {
  return scope.accountId ?? GLOBAL_OWNER;
}

/** The public form of a resource: its fields, `id`, and `type` (`local` for an account's, `global`). */
export function resourceJson(d: StoredDoc): Record<string, unknown> {
  return { ...d.doc, id: d.id, type: d.accountId === GLOBAL_OWNER ? 'global' : 'local' };
}

/**
 * A resource's JSON with its gateways' passwords masked: what callers who may not see them (and
 * `tel export` without `--with-secrets`) get.
 */
export function withMaskedPasswords(json: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(json.gateways)) return json;
  const gateways = json.gateways.map((gw: unknown) =>
    isObject(gw) && typeof gw.password === 'string' ? { ...gw, password: MASKED } : gw,
  );
  return { ...json, gateways };
}

/**
 * A resource posted back whole after a masked read carries the masks: a gateway's masked password
 * means "unchanged", and keeps the password of the stored gateway it stands for (the one at the
 * same place when it names the same server, else the first naming that server).
 */
export function withKeptPasswords(doc: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> {
  const was: unknown[] = Array.isArray(current.gateways) ? current.gateways : [];
  if (!Array.isArray(doc.gateways) || was.length === 0) return doc;
  const gateways = doc.gateways.map((gw: unknown, i: number) => {
    if (!isObject(gw) || gw.password !== MASKED) return gw;
    const here = was[i];
    const same = isObject(here) && here.server === gw.server ? here : was.find((s) => isObject(s) && s.server === gw.server);
    return isObject(same) && typeof same.password === 'string' ? { ...gw, password: same.password } : gw;
  });
  return { ...doc, gateways };
}

/** A resource as its listing's filters see it: as a GET shows it (gateway passwords masked unless `admin`), with Kazoo's private fields. */
export function resourceFilterDoc(d: StoredDoc, admin: boolean): Record<string, unknown> {
  return filterDoc(d, admin ? resourceJson(d) : withMaskedPasswords(resourceJson(d)));
}

/** A listing row: the seed's `id`, `name`, `enabled`, `weight`, plus Kazoo's `weight_cost`. */
export function resourceSummary(d: StoredDoc): Record<string, unknown> {
  return { id: d.id, name: d.doc.name, enabled: d.doc.enabled, weight: d.doc.weight_cost, weight_cost: d.doc.weight_cost };
}

/** Resources of a scope, oldest first. */
export function listResources(core: Core, scope: Scope): StoredDoc[] {
  return listDocs(core, RESOURCE_KIND, ownerOf(scope));
}

/** One page of a scope's resources, oldest first (newest first when `descending`). */
export function resourcesPage(core: Core, scope: Scope, q: PageQuery<CompoundKey>, descending = false): Page<StoredDoc, CompoundKey> {
  return docsPage(core, RESOURCE_KIND, ownerOf(scope), q, descending);
}

/** One resource of a scope, or the 404 `bad_identifier`. */
export function getResource(core: Core, scope: Scope, id: string): StoredDoc {
  return getDoc(core, RESOURCE_KIND, ownerOf(scope), id);
}

/** One resource of a scope, or undefined. */
export function findResource(core: Core, scope: Scope, id: string): StoredDoc | undefined {
  return findDoc(core, RESOURCE_KIND, ownerOf(scope), id);
}

/** The resource a job of `accountId` routes its numbers through: the account's own, else a global one. */
export function findJobResource(core: Core, accountId: string, id: string): StoredDoc | undefined {
  return findResource(core, { accountId }, id) ?? findResource(core, {}, id);
}

/**
 * Whether another document authenticates calls by this IP address: a gateway of a peering account
 * resource or a device authenticated by IP (Kazoo's sip_auth `lookup_by_ip`), one search of
 * `ip_auth` (migration 3200).
 */
function ipInUse(core: Core, ip: string, selfId: string | undefined): boolean {
  return stmt(core.db, 'SELECT 1 FROM ip_auth WHERE ip = ? AND doc_id IS NOT ? LIMIT 1').get(ip, selfId ?? null) !== undefined;
}

const ipv4 = (v: unknown): string | undefined => (typeof v === 'string' && isIPv4(v) ? v : undefined);

/**
 * A peering resource's gateways, checked as Kazoo's `cb_resources` checks them: each authenticates
 * calls by an IPv4 address, its `inbound_ip`, else its `server`, that no other peering gateway and
 * no device authenticated by IP uses (400 `unique`); a gateway with neither is refused (400
 * `required`). Kazoo also refuses an address inside one of the switch's ACLs (`ecallmgr` `acls`),
 * which tel does not keep.
 */
function peerGatewayErrors(core: Core, doc: Record<string, unknown>, selfId: string | undefined): ValidationErrors | undefined {
  const errs: ValidationErrors = {};
  const gateways: unknown[] = Array.isArray(doc.gateways) ? doc.gateways : [];
  gateways.forEach((gw, i) => {
    const inbound = isObject(gw) ? ipv4(gw.inbound_ip) : undefined;
    const server = isObject(gw) ? ipv4(gw.server) : undefined;
    if (inbound !== undefined) {
      if (ipInUse(core, inbound, selfId)) errs[`gateways.${i}.inbound_ip`] = { unique: { message: 'Gateway inbound ip is already in use', cause: i } };
    } else if (server !== undefined) {
      if (ipInUse(core, server, selfId)) errs[`gateways.${i}.server`] = { unique: { message: 'Gateway server ip is already in use', cause: i } };
    } else {
      errs[`gateways.${i}.server`] = { required: { message: 'Gateway server must be an IP when peering with the resource', cause: i } };
    }
  });
  return Object.keys(errs).length > 0 ? errs : undefined;
}

/**
 * Checks a resource document, filling defaults in place: the schema (every nested object,
 * regexes that must compile), then, once it fits, Kazoo's peering rules for an account's
 * resource with `peer: true`: refused unless `api.resources` `allow_peers` is true, and its
 * gateways' addresses checked (`peerGatewayErrors`). `selfId` is the resource's own id when it
 * is changed. Answers the errors instead of throwing.
 */
export function checkResource(core: Core, scope: Scope, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  const base = validator.check(doc);
  if (base || !scope.accountId || doc.peer !== true) return base;
  if (core.config.value<unknown>(RESOURCES_CONFIG, 'allow_peers', false) !== true) {
    return { peer: { forbidden: { message: 'Peers are currently disabled, please contact the system admin' } } };
  }
  return peerGatewayErrors(core, doc, selfId);
}

/** A client's document without server fields, nor the read-only `type` the API adds. */
export function incoming(input: Record<string, unknown>): Record<string, unknown> {
  const { type: _type, ...rest } = stripServerFields(input);
  return rest;
}

/** Creates a resource (defaults filled in); `id` may be chosen (collections), else generated. */
export function createResource(core: Core, scope: Scope, input: Record<string, unknown>, id: string = newId()): StoredDoc {
  const doc = incoming(input);
  throwIfErrors(checkResource(core, scope, doc));
  if (stmt(core.db, 'SELECT 1 FROM docs WHERE id = ?').get(id)) {
    throw errors.invalidField('id', 'unique', 'a document with this id already exists', { value: id });
  }
  return insertDoc(core, RESOURCE_KIND, ownerOf(scope), doc, {}, id);
}

/** Replaces (POST) or merge-patches (PATCH) a resource; `ifMatch` guards against lost updates. */
export function updateResource(
  core: Core,
  scope: Scope,
  id: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
  ifMatch?: string,
): StoredDoc {
  return transaction(core.db, () => {
    const current = getResource(core, scope, id);
    const patch = withKeptPasswords(incoming(input), current.doc);
    const doc = mode === 'merge' ? mergePatch(current.doc, patch) : patch;
    throwIfErrors(checkResource(core, scope, doc, id));
    return updateDoc(core, current, doc, current.pvt, ifMatch);
  });
}

/** Deletes a resource and answers it as it was. */
export function deleteResource(core: Core, scope: Scope, id: string, ifMatch?: string): StoredDoc {
  return transaction(core.db, () => {
    const current = getResource(core, scope, id);
    deleteDoc(core, current, ifMatch);
    return current;
  });
}

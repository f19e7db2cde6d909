import type { Core } from '../core-type.js';
import { ApiError, errors, type ValidationErrors } from '../errors.js';
import { compileValidator } from '../schema/validate.js';
import { listDocsUnder, type StoredDoc } from '../modules/documents/store.js';
import { DOCUMENT_KINDS } from '../modules/documents/kinds.js';
import { queues } from '../modules/queues/kind.js';
import type { DocumentService } from '../modules/documents/crud.js';
import { createUser, deleteUser, listUsers, updateUser } from '../modules/users/service.js';
import { userSchema } from '../modules/users/schema.js';
import { createWebhook, deleteWebhook, listWebhooks, maskedUri, updateWebhook } from '../modules/webhooks/service.js';
import { listHooksUnder } from '../modules/webhooks/store.js';
import { validateWebhook } from '../modules/webhooks/schema.js';
import { createResource, deleteResource, listResources, RESOURCE_KIND, updateResource, withMaskedPasswords, type Scope } from '../modules/resources/service.js';
import { resourceSchema } from '../modules/resources/schema.js';
import { addToPool, dropFromPool, poolNumbersUnder } from '../modules/numbers/pool.js';
import { toE164 } from '../modules/numbers/normalize.js';

/** What a lab file shows in place of a secret it does not carry (`tel export` without `--with-secrets`). */
export const MASKED = '********';

/** One stored object of a collection, as planning compares it. */
export interface Stored {
  id: string;
  rev: string;
  doc: Record<string, unknown>;
  /** users: the stored password hashes */
  pvt?: Record<string, unknown>;
}

/** Options of a write, decided while planning. */
export interface WriteExtras {
  /** users: the password's hashes, computed outside the transaction */
  hashed?: import('../modules/users/service.js').HashedPassword;
  password?: string;
}

/**
 * A collection of named objects a lab declares in an account (or globally, for resources), over
 * the services the API uses: how to validate one (filling defaults, as the service will), list,
 * create, change and remove them, and which fields are secrets.
 */
export interface CollectionKind {
  /** the key in a lab file's account (`users`, `webhooks`, …) and in references (`{{users.…}}`) */
  key: string;
  /** singular, for plans (`user`) */
  label: string;
  /** the natural key's field (`name`, `username`) */
  keyField: string;
  /** the form two natural keys share when they name the same object (users: lower case) */
  keyOf(name: string): string;
  /** validates a document in place (defaults filled, strings coerced) */
  check(doc: Record<string, unknown>): ValidationErrors | undefined;
  /** rewrites a document in place as the service will before storing it (a callflow's numbers as E.164) */
  prepare?(core: Core, owner: Scope, doc: Record<string, unknown>): void;
  list(core: Core, owner: Scope): Stored[];
  /** every stored object of the kind in an account and in the accounts below it, by account: one read */
  listUnder(core: Core, accountId: string): Map<string, Stored[]>;
  create(core: Core, owner: Scope, doc: Record<string, unknown>, id: string, extras: WriteExtras): void;
  update(core: Core, owner: Scope, current: Stored, doc: Record<string, unknown>, extras: WriteExtras): void;
  remove(core: Core, owner: Scope, current: Stored): void;
  /** masks a document's secrets in place (export without `--with-secrets`) */
  mask?(doc: Record<string, unknown>): void;
}

/** The account id of a scope (every collection but global resources has one). */
function accountOf(owner: Scope): string {
  if (!owner.accountId) throw new Error('this collection belongs to an account');
  return owner.accountId;
}

/** A validator that throws (webhooks) as one that answers the errors. */
function answering(fn: (doc: Record<string, unknown>) => unknown): (doc: Record<string, unknown>) => ValidationErrors | undefined {
  return (doc) => {
    try {
      fn(doc);
      return undefined;
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) return err.data as ValidationErrors;
      throw err;
    }
  };
}

const stored = (d: StoredDoc): Stored => ({ id: d.id, rev: d.rev, doc: d.doc, pvt: d.pvt });
const exact = (name: string) => name;

/** Objects grouped by their account, in the order given. */
function byAccount<T extends { accountId: string }>(rows: T[], toStored: (row: T) => Stored): Map<string, Stored[]> {
  const out = new Map<string, Stored[]>();
  for (const r of rows) {
    const list = out.get(r.accountId);
    if (list) list.push(toStored(r));
    else out.set(r.accountId, [toStored(r)]);
  }
  return out;
}

/** Documents of a stored kind in an account and below it, by account. */
const docsUnder = (kind: string) => (core: Core, accountId: string) => byAccount(listDocsUnder(core, kind, accountId), stored);

const validateUserDoc = compileValidator(userSchema);
const validateResourceDoc = compileValidator(resourceSchema);

const users: CollectionKind = {
  key: 'users',
  label: 'user',
  keyField: 'username',
  keyOf: (name) => name.toLowerCase(),
  // as the service stores it: the username in lower case (Kazoo's)
  check: (doc) => {
    if (typeof doc.username === 'string') doc.username = doc.username.toLowerCase();
    return validateUserDoc.check(doc);
  },
  list: (core, owner) => listUsers(core, accountOf(owner)).map(stored),
  listUnder: docsUnder('user'),
  create: (core, owner, doc, id, x) => void createUser(core, accountOf(owner), { ...doc, password: x.password }, id, { hashed: x.hashed }),
  update: (core, owner, cur, doc, x) =>
    void updateUser(core, accountOf(owner), cur.id, x.password ? { ...doc, password: x.password } : doc, 'replace', cur.rev, {
      hashed: x.hashed,
    }),
  remove: (core, owner, cur) => void deleteUser(core, accountOf(owner), cur.id, cur.rev),
};

function documents(svc: DocumentService): CollectionKind {
  const validate = compileValidator(svc.kind.schema);
  return {
    key: svc.kind.endpoint,
    label: svc.kind.kind,
    keyField: 'name',
    keyOf: exact,
    check: (doc) => validate.check(doc),
    prepare: svc.kind.prepare && ((core, owner, doc) => svc.kind.prepare!(core, accountOf(owner), doc)),
    list: (core, owner) => svc.list(core, accountOf(owner)).map(stored),
    listUnder: docsUnder(svc.kind.kind),
    create: (core, owner, doc, id) => void svc.create(core, accountOf(owner), doc, id),
    update: (core, owner, cur, doc) => void svc.update(core, accountOf(owner), cur.id, doc, 'replace', cur.rev),
    remove: (core, owner, cur) => void svc.remove(core, accountOf(owner), cur.id, cur.rev),
  };
}

const resources: CollectionKind = {
  key: 'resources',
  label: 'resource',
  keyField: 'name',
  keyOf: exact,
  check: (doc) => validateResourceDoc.check(doc),
  list: (core, owner) => listResources(core, owner).map(stored),
  listUnder: docsUnder(RESOURCE_KIND),
  create: (core, owner, doc, id) => void createResource(core, owner, doc, id),
  update: (core, owner, cur, doc) => void updateResource(core, owner, cur.id, doc, 'replace', cur.rev),
  remove: (core, owner, cur) => void deleteResource(core, owner, cur.id, cur.rev),
  mask(doc) {
    if (Array.isArray(doc.gateways)) doc.gateways = withMaskedPasswords(doc).gateways;
  },
};

const webhooks: CollectionKind = {
  key: 'webhooks',
  label: 'webhook',
  keyField: 'name',
  keyOf: exact,
  check: answering(validateWebhook),
  list: (core, owner) => listWebhooks(core, accountOf(owner)).map((h) => ({ id: h.id, rev: h.rev, doc: h.doc })),
  listUnder: (core, accountId) => byAccount(listHooksUnder(core, accountId), (h) => ({ id: h.id, rev: h.rev, doc: h.doc })),
  create: (core, owner, doc, id) => void createWebhook(core, accountOf(owner), doc, id),
  update: (core, owner, cur, doc) => void updateWebhook(core, accountOf(owner), cur.id, doc, 'replace', cur.rev),
  remove: (core, owner, cur) => void deleteWebhook(core, accountOf(owner), cur.id, cur.rev),
  mask(doc) {
    if (typeof doc.secret === 'string') doc.secret = MASKED;
    if (typeof doc.uri === 'string') doc.uri = maskedUri(doc.uri);
  },
};

const validatePoolNumber = compileValidator({
  type: 'object',
  required: ['number'],
  additionalProperties: false,
  properties: { number: { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$', description: 'an E.164 number' } },
});

/** Numbers of an account's pool by account, as stored objects keyed by the number. */
const poolUnder = (core: Core, accountId: string) =>
  new Map([...poolNumbersUnder(core, accountId)].map(([pool, numbers]) => [pool, numbers.map((number): Stored => ({ id: number, rev: number, doc: { number } }))]));

/**
 * The numbers the simulated carrier offers an account (`number_pool`: `- number: "+14155550100"`),
 * those accounts bought included (they go back to the pool when released).
 */
const numberPool: CollectionKind = {
  key: 'number_pool',
  label: 'pool number',
  keyField: 'number',
  keyOf: (name) => toE164(name) ?? name,
  check: (doc) => {
    if (typeof doc.number === 'string') doc.number = toE164(doc.number) ?? doc.number;
    return validatePoolNumber.check(doc);
  },
  list: (core, owner) => poolUnder(core, accountOf(owner)).get(accountOf(owner)) ?? [],
  listUnder: poolUnder,
  create(core, owner, doc) {
    const { refused } = addToPool(core, accountOf(owner), [String(doc.number)]);
    const why = Object.values(refused)[0];
    if (why) throw errors.invalidField('number', 'unique', `${String(doc.number)}: ${why}`);
  },
  update: () => undefined,
  remove: (core, owner, cur) => dropFromPool(core, accountOf(owner), cur.id),
};

/**
 * The key each of one owner's stored objects has in a lab file (listed oldest first, as every
 * kind lists them): its own, or for a second, third… object sharing it (a database may hold two
 * hooks named CRM), the key with ` (2)`, ` (3)`… that no other object has. `tel export` writes
 * them and `tel apply` matches by them, so an exported file applies to the database it came from
 * (renaming those objects) as to an empty one.
 */
export function labKeys(kind: CollectionKind, stored: Stored[]): Map<string, string> {
  const keyOf = (s: Stored) => String(s.doc[kind.keyField] ?? '');
  const taken = new Set(stored.map((s) => kind.keyOf(keyOf(s))));
  const seen = new Set<string>();
  const out = new Map<string, string>();
  for (const s of stored) {
    let key = keyOf(s);
    if (seen.has(kind.keyOf(key))) {
      let n = 2;
      while (taken.has(kind.keyOf(`${key} (${n})`))) n++;
      key = `${key} (${n})`;
      taken.add(kind.keyOf(key));
    }
    seen.add(kind.keyOf(key));
    out.set(s.id, key);
  }
  return out;
}

/** The collections of an account, in the order a lab file lists (and `tel apply` creates) them. */
export const ACCOUNT_COLLECTIONS: CollectionKind[] = [users, ...DOCUMENT_KINDS.map(documents), documents(queues), resources, webhooks, numberPool];

/** The global collections (the `system` section): resources. */
export const GLOBAL_RESOURCES = resources;

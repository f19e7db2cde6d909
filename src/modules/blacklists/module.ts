import type { Core } from '../../core-type.js';
import { isObject } from '../../util/json.js';
import { documentService, flaggedRow } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
import { normalizeSystemNumber } from '../numbers/converters.js';
import type { TelModule } from '../types.js';
import { blacklistSchema } from './schema.js';

/** The numbers of a blacklist are its keys, stored as Kazoo normalises them (`4155550100` → `+14155550100`). */
function prepareBlacklist(core: Core, _accountId: string, doc: Record<string, unknown>): void {
  if (!isObject(doc.numbers)) return;
  doc.numbers = Object.fromEntries(Object.entries(doc.numbers).map(([n, v]) => [normalizeSystemNumber(core, n), v]));
}

/** Blacklists: numbers an account's calls refuse. */
export const blacklists = documentService({
  kind: 'blacklist',
  endpoint: 'blacklists',
  summary: ['name', 'flags'],
  row: flaggedRow(['name']),
  schema: blacklistSchema,
  prepare: prepareBlacklist,
});

/** `/v2/accounts/{id}/blacklists`: Kazoo's `cb_blacklists`. */
export const blacklistsModule: TelModule = { name: 'blacklists', endpoints: ['blacklists'], routes: documentRoutes(blacklists) };

import type { Core } from '../../core-type.js';
import type { JsonSchema } from '../../schema/validate.js';
import { stmt } from '../../store/db.js';
import { isObject } from '../../util/json.js';
import type { StoredDoc } from './store.js';

type Doc = Record<string, unknown>;

/**
 * The ids a callflow's actions name (Kazoo's `ids_in_flow`): in each node's `data`, an `id` and
 * every key with `_id` in it that holds a string; and each child's branch key (a temporal route's
 * rule id). Read without recursion, whatever the flow's depth.
 */
export function idsInFlow(flow: unknown): Set<string> {
  const ids = new Set<string>();
  const nodes: unknown[] = [flow];
  while (nodes.length > 0) {
    const node = nodes.pop();
    if (!isObject(node)) continue;
    if (isObject(node.data)) {
      for (const [key, value] of Object.entries(node.data)) {
        if ((key === 'id' || key.includes('_id')) && typeof value === 'string' && value !== '') ids.add(value);
      }
    }
    if (isObject(node.children)) {
      for (const [branch, child] of Object.entries(node.children)) {
        // `_` is the default branch, and a one-character key a menu's digit: no document's id
        if (branch.length >= 2) ids.add(branch);
        nodes.push(child);
      }
    }
  }
  return ids;
}

/** What Kazoo tells of one document a callflow names: its `name` (a user's first and last), `numbers` and `pvt_type`. */
function summary(kind: string, doc: Doc): Doc {
  const out: Doc = {};
  if (kind === 'user') {
    const name = `${typeof doc.first_name === 'string' ? doc.first_name : ''} ${typeof doc.last_name === 'string' ? doc.last_name : ''}`;
    if (name !== ' ') out.name = name;
  } else if (doc.name !== undefined) out.name = doc.name;
  if (doc.numbers !== undefined) out.numbers = doc.numbers;
  out.pvt_type = kind;
  return out;
}

/**
 * A callflow's `metadata`, as Kazoo's GET of one answers it (`cb_callflows:get_metadata`): for
 * each document of the account its flow names, `{name, numbers, pvt_type}` by id; ids naming no
 * document are left out. Callflows app draws its actions' captions from it. One read.
 */
export function callflowMetadata(core: Core, d: StoredDoc): { metadata: Doc } {
  const ids = [...idsInFlow(d.doc.flow)];
  const metadata: Doc = {};
  if (ids.length === 0) return { metadata };
  const rows = stmt(core.db, 'SELECT id, kind, doc FROM docs WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))').all(
    d.accountId,
    JSON.stringify(ids),
  ) as { id: string; kind: string; doc: string }[];
  for (const r of rows) metadata[r.id] = summary(r.kind, JSON.parse(r.doc) as Doc);
  return { metadata };
}

/** The JSON Schema of what `callflowMetadata` adds to a callflow's answer. */
export const CALLFLOW_METADATA_FIELDS: Record<string, JsonSchema> = {
  metadata: {
    type: 'object',
    description: 'the documents the flow names, by id: their name, numbers and type',
    additionalProperties: {
      type: 'object',
      properties: { name: {}, numbers: {}, pvt_type: { type: 'string' } },
      required: ['pvt_type'],
    },
  },
};

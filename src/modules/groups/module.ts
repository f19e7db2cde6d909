import { isObject } from '../../util/json.js';
import { documentService } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
import type { StoredDoc } from '../documents/store.js';
import type { TelModule } from '../types.js';
import { groupSchema } from './schema.js';

/**
 * A group's listing row as Kazoo's view makes it: its `features` (the SmartPBX features it has
 * enabled, and `music_on_hold` when it names a media), how many `endpoints` it has, its `flags`.
 */
function groupRow(d: StoredDoc): Record<string, unknown> {
  const features: string[] = [];
  if (isObject(d.doc.smartpbx)) {
    for (const [feature, v] of Object.entries(d.doc.smartpbx)) if (isObject(v) && v.enabled) features.push(feature);
  }
  if (isObject(d.doc.music_on_hold) && d.doc.music_on_hold.media_id) features.push('music_on_hold');
  return {
    name: d.doc.name,
    features,
    endpoints: isObject(d.doc.endpoints) ? Object.keys(d.doc.endpoints).length : 0,
    flags: d.doc.flags ?? [],
  };
}

/** Groups: endpoints rung or paged together. */
export const groups = documentService({
  kind: 'group',
  endpoint: 'groups',
  summary: ['name', 'features', 'endpoints', 'flags'],
  row: groupRow,
  rowFields: { features: { type: 'array', items: { type: 'string' } }, endpoints: { type: 'integer', description: 'how many endpoints the group has' } },
  schema: groupSchema,
});

/** `/v2/accounts/{id}/groups`: Kazoo's `cb_groups`. */
export const groupsModule: TelModule = { name: 'groups', endpoints: ['groups'], routes: documentRoutes(groups) };

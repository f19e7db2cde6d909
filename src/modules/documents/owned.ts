import type { Core } from '../../core-type.js';
import { stmt } from '../../store/db.js';
import { fromRow, type Row, type StoredDoc } from './store.js';

/** The devices a user owns, oldest first, by the index of owners (`docs_device_owner`). */
export function devicesOwnedBy(core: Core, accountId: string, userId: string): StoredDoc[] {
  const rows = stmt(core.db, "SELECT * FROM docs WHERE account_id = ? AND json_extract(doc, '$.owner_id') = ? AND kind = 'device' ORDER BY created, id").all(accountId, userId);
  return (rows as unknown as Row[]).map(fromRow);
}

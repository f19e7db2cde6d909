import type { Core } from '../../core-type.js';
import { compileValidator } from '../../schema/validate.js';
import { getAccount } from '../accounts/service.js';
import { publishObject, type ObjectAction } from '../documents/store.js';
import { newId } from '../../util/ids.js';
import { OBJECT_ACTIONS, OBJECT_HOOK_TYPES } from '../webhooks/hook-types.js';
import type { EmittedEvent } from './registry.js';

/** What the `object` simulation takes besides `kind`. */
export const validateObject = compileValidator({
  type: 'object',
  properties: {
    type: { type: 'string', enum: OBJECT_HOOK_TYPES, default: 'device' },
    action: { type: 'string', enum: OBJECT_ACTIONS, default: 'doc_edited' },
    id: { type: 'string', minLength: 1, description: "the object's id (default: a new one)" },
  },
});

/**
 * An `object` event without changing anything: what a change of a stored object of `type`
 * fires (creating, editing or deleting a device, a user, … fires it for real).
 */
export function simulateObject(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateObject(fields);
  getAccount(core, accountId);
  const id = (input.id as string | undefined) ?? newId();
  return [{ event: 'object', ...publishObject(core, String(input.type), id, accountId, input.action as ObjectAction) }];
}

import type { Core } from '../../core-type.js';
import { compileValidator } from '../../schema/validate.js';
import { HANGUP_CODES } from '../channels/calls.js';
import { hangupCall } from '../channels/service.js';
import type { EmittedEvent } from './registry.js';

/** What the `hangup` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateHangup = compileValidator({
  type: 'object',
  required: ['call_id'],
  properties: {
    call_id: { type: 'string', minLength: 1, description: 'a leg of a call kept up (`hangup: false`): the call it belongs to ends' },
    hangup_cause: { type: 'string', enum: Object.keys(HANGUP_CODES), default: 'NORMAL_CLEARING' },
  },
});

/**
 * Ends a call in progress, as when one of its parties hangs up: `channel_destroy` for each leg a
 * simulation reported, the legs' CDRs (and the recording of a call that records). A call that
 * is not up in the account is a 404.
 */
export function simulateHangup(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateHangup(fields);
  return hangupCall(core, accountId, String(input.call_id), String(input.hangup_cause));
}

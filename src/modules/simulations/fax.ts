import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { compileValidator } from '../../schema/validate.js';
import { emailFax, receiveFax, sendNextFax } from '../faxes/service.js';
import type { EmittedEvent } from './registry.js';

/** What the `fax` simulation takes besides `kind` (its schema is in the OpenAPI document). */
export const validateFax = compileValidator({
  type: 'object',
  properties: {
    direction: {
      type: 'string',
      enum: ['inbound', 'outbound'],
      default: 'inbound',
      description: 'inbound: a fax arrives; outbound: the fax server takes up a queued fax (or, with `email_from`, a fax box receives one by e-mail)',
    },
    result: { type: 'string', enum: ['success', 'failure'], default: 'success' },
    pages: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
    error: { type: 'string', minLength: 1, description: 'why it failed (the fax result text)' },
    from: { type: 'string', minLength: 1, default: '+14155550160', description: 'inbound: the sending number' },
    from_name: { type: 'string' },
    to: { type: 'string', minLength: 1, default: '+14155550150', description: 'inbound: the number it arrives on; by e-mail: the number to fax' },
    faxbox_id: { type: 'string', minLength: 1, description: 'the fax box it arrives in (its owner gets it), or is e-mailed to' },
    owner_id: { type: 'string', minLength: 1 },
    job_id: { type: 'string', minLength: 1, description: 'outbound: the queued fax to send (default: the oldest pending)' },
    email_from: { type: 'string', minLength: 3, description: "outbound: the sender's e-mail address: the fax box's permission list decides" },
  },
});

/**
 * A fax through the simulated switch and fax server: one arriving (the inbox, `inbound_fax`), a
 * queued one sent (`processing`, then `completed`, `pending` for a retry, or `failed`; the
 * outbox; `outbound_fax`), or one e-mailed to a fax box (a job, or an SMTP log of the refusal).
 */
export function simulateFax(core: Core, accountId: string, data: Record<string, unknown>): EmittedEvent[] {
  const { kind: _kind, ...fields } = data;
  const input = validateFax(fields);
  const success = input.result === 'success';
  if (input.direction === 'inbound') {
    return receiveFax(core, accountId, {
      from: String(input.from),
      fromName: input.from_name as string | undefined,
      to: String(input.to),
      faxboxId: input.faxbox_id as string | undefined,
      ownerId: input.owner_id as string | undefined,
      pages: Number(input.pages),
      success,
      error: input.error as string | undefined,
    });
  }
  if (input.email_from !== undefined) {
    if (input.faxbox_id === undefined) throw errors.invalidField('faxbox_id', 'required', 'A fax sent by e-mail goes to a fax box');
    return emailFax(core, accountId, String(input.faxbox_id), String(input.email_from), String(input.to));
  }
  return sendNextFax(core, accountId, { jobId: input.job_id as string | undefined, success, pages: Number(input.pages), error: input.error as string | undefined });
}

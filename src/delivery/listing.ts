import type { Core } from '../core-type.js';
import type { RequestContext } from '../http/context.js';
import type { EnvelopeExtras } from '../http/envelope.js';
import { errors } from '../errors.js';
import { decodeStartKey, encodeStartKey, pageSizeOf } from '../http/paging.js';
import { gregorianToUnixMs } from '../util/time.js';
import { attemptJson, listAttempts } from './attempts.js';

function gregorianParam(ctx: RequestContext, name: string): number | undefined {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw errors.invalidField(name, 'type', 'Value did not match type(s): integer', { target: 'integer', value: raw });
  return gregorianToUnixMs(n);
}

/**
 * An attempts listing as the API answers it (webhook attempts, queue notifications): newest
 * first, `created_from`/`created_to` in Gregorian seconds, `page_size` and paging by attempt id
 * with `start_key`/`next_start_key`.
 */
export function attemptsListing(
  ctx: RequestContext,
  core: Core,
  of: { kind: string; accountId: string; hookId?: string },
): { data: Record<string, unknown>[]; extras: EnvelopeExtras } {
  const fromMs = gregorianParam(ctx, 'created_from');
  const toMs = gregorianParam(ctx, 'created_to');
  if (fromMs !== undefined && toMs !== undefined && toMs < fromMs) {
    throw errors.invalidField('created_from', 'date_range', 'created_from is after created_to', { value: ctx.query.get('created_from') });
  }
  const pageSize = pageSizeOf(ctx.query);
  const start = decodeStartKey(ctx.query.get('start_key'));
  const startId = typeof start === 'number' ? start : undefined;
  const { rows, nextId } = listAttempts(core, {
    ...of,
    fromMs,
    // created_to names a whole second
    toMs: toMs === undefined ? undefined : toMs + 999,
    startId,
    pageSize,
  });
  const extras: EnvelopeExtras = { page_size: rows.length };
  if (pageSize !== undefined) {
    if (rows.length > 0) extras.start_key = encodeStartKey(startId ?? rows[0].id);
    if (nextId !== undefined) extras.next_start_key = encodeStartKey(nextId);
  }
  return { data: rows.map(attemptJson), extras };
}

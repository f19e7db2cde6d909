import type { RequestContext } from '../../http/context.js';
import { boundedWindowOf, BOUNDED_QUERY, CREATED_KEY, listingReply, newestFirst } from '../../http/paging.js';
import type { RouteDef } from '../../http/router.js';
import type { JsonSchema } from '../../schema/validate.js';
import { MAX_RANGE_SECONDS } from '../../util/time.js';
import { filterDoc, publicDoc, type StoredDoc } from '../documents/store.js';
import { deleteRecording, getRecording, recordingAudio, recordingsPage, RECORDING_TYPE } from './service.js';

const RECORDING: JsonSchema = {
  type: 'object',
  required: ['id', 'call_id', 'name', 'content_type', 'duration_ms', 'start'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    call_id: { type: 'string' },
    cdr_id: { type: 'string' },
    interaction_id: { type: 'string' },
    content_type: { type: 'string' },
    duration: { type: 'integer' },
    duration_ms: { type: 'integer' },
    start: { type: 'integer', description: 'when the recording started (Gregorian seconds)' },
    owner_id: { type: 'string' },
    _read_only: { type: 'object' },
  },
};

/** A listing row: the recording, and the media types it can be fetched in (Kazoo's `_read_only.content_types`). */
const row = (d: StoredDoc) => ({ ...publicDoc(d), _read_only: { content_types: [RECORDING_TYPE] } });

/**
 * True when the request asks for the recording's sound rather than its document, as Kazoo decides
 * it: the first type the `Accept` header (or `?accept=`) names is an audio one.
 */
function wantsAudio(ctx: RequestContext): boolean {
  const accept = ctx.query.get('accept') ?? (typeof ctx.headers.accept === 'string' ? ctx.headers.accept : '');
  return /^\s*audio\//i.test(accept);
}

const ONE = 'accounts/:account_id/recordings/:recording_id';

export const recordingRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/recordings',
    query: BOUNDED_QUERY,
    response: { type: 'array', items: RECORDING },
    handler: (ctx, core) => {
      const window = boundedWindowOf(ctx.query, MAX_RANGE_SECONDS);
      const descending = newestFirst(ctx.query);
      return listingReply(ctx.query, (q) => recordingsPage(core, ctx.params.account_id, { ...q, window, descending }), row, CREATED_KEY, { timeRange: true, whole: filterDoc });
    },
  },
  {
    method: 'GET',
    path: ONE,
    response: RECORDING,
    handler: (ctx, core) => {
      const d = getRecording(core, ctx.params.account_id, ctx.params.recording_id);
      if (!wantsAudio(ctx)) return { data: publicDoc(d), extras: { revision: d.rev } };
      const disposition = ctx.query.get('inline') === 'true' ? 'inline' : 'attachment';
      return { file: recordingAudio(d), headers: { 'Content-Type': RECORDING_TYPE, 'Content-Disposition': `${disposition}; filename=${String(d.doc.name)}` } };
    },
  },
  {
    method: 'DELETE',
    path: ONE,
    response: RECORDING,
    handler: (ctx, core) => ({ data: { ...publicDoc(deleteRecording(core, ctx.params.account_id, ctx.params.recording_id)), _read_only: { deleted: true } } }),
  },
];

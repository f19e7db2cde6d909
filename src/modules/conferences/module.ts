import type { Core } from '../../core-type.js';
import type { ValidationErrors } from '../../errors.js';
import type { RouteDef } from '../../http/router.js';
import { documentAnswer } from '../../http/answers.js';
import { stmt } from '../../store/db.js';
import { documentService } from '../documents/crud.js';
import { documentRoutes } from '../documents/routes.js';
import { publicDoc, type StoredDoc } from '../documents/store.js';
import type { TelModule } from '../types.js';
import { conferences as conferenceSchema } from '../../schema/callflow-actions.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * A conference's numbers (its own, its members' and its moderators') may reach no other
 * conference of the account: one search of `doc_keys` (migration 4000). Kazoo's 400 on `numbers`.
 */
function checkConference(core: Core, accountId: string, doc: Record<string, unknown>, selfId?: string): ValidationErrors | undefined {
  const member = (doc.member ?? {}) as Record<string, unknown>;
  const moderator = (doc.moderator ?? {}) as Record<string, unknown>;
  const wanted = [...strings(doc.conference_numbers), ...strings(member.numbers), ...strings(moderator.numbers)];
  if (wanted.length === 0) return undefined;
  const taken = stmt(
    core.db,
    `SELECT DISTINCT value FROM doc_keys
      WHERE account_id = ? AND field = 'conference_numbers' AND value IN (SELECT value FROM json_each(?)) AND doc_id IS NOT ?
      ORDER BY value`,
  ).all(accountId, JSON.stringify(wanted), selfId ?? null) as { value: string }[];
  if (taken.length === 0) return undefined;
  return { numbers: { unique: { message: 'Numbers already in use', cause: taken.map((t) => t.value).join(', ') } } };
}

/**
 * What a conference has running now, as Kazoo adds it under `_read_only`: no conference runs in
 * tel (there is no media server), so nobody is in one.
 */
const NOBODY = { members: 0, moderators: 0, duration: 0, is_locked: false };

/** A conference's listing row: Kazoo's view's fields, `flags` (`[]` when none) and what runs now. */
function conferenceRow(d: StoredDoc): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const f of ['name', 'owner_id', 'member', 'moderator', 'ui_flags', 'conference_numbers']) if (d.doc[f] !== undefined) row[f] = d.doc[f];
  row.flags = d.doc.flags ?? [];
  row._read_only = NOBODY;
  return row;
}

const REALTIME = {
  type: 'object',
  description: 'what runs now (nobody: no conference runs in tel)',
  properties: { members: { type: 'integer' }, moderators: { type: 'integer' }, duration: { type: 'integer' }, is_locked: { type: 'boolean' } },
};

/** Conferences: rooms callers join by number and PIN. */
export const conferences = documentService({
  kind: 'conference',
  endpoint: 'conferences',
  summary: ['name', 'owner_id', 'member', 'moderator', 'ui_flags', 'conference_numbers', 'flags', '_read_only'],
  row: conferenceRow,
  rowFields: { ui_flags: {}, _read_only: REALTIME },
  schema: conferenceSchema,
  check: checkConference,
});

const ONE = 'accounts/:account_id/conferences/:doc_id';
const PARTICIPANTS = `${ONE}/participants`;
const PARTICIPANT = { type: 'object', description: 'a participant of the running conference' };

/** The routes that read what a conference has running: its document's `_read_only`, its participants. */
const runningRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: ONE,
    response: documentAnswer(conferenceSchema, {
      _read_only: { ...REALTIME, properties: { ...REALTIME.properties, participants: { type: 'array', items: PARTICIPANT } } },
    }),
    handler: (ctx, core) => {
      const d = conferences.get(core, ctx.params.account_id, ctx.params.doc_id);
      return { data: { ...publicDoc(d), _read_only: { ...NOBODY, participants: [] } }, extras: { revision: d.rev } };
    },
  },
  {
    method: 'GET',
    path: PARTICIPANTS,
    response: { type: 'array', items: PARTICIPANT },
    handler: (ctx, core) => {
      conferences.get(core, ctx.params.account_id, ctx.params.doc_id);
      return { data: [] };
    },
  },
  {
    method: 'GET',
    path: `${PARTICIPANTS}/:participant_id`,
    response: PARTICIPANT,
    handler: (ctx, core) => {
      conferences.get(core, ctx.params.account_id, ctx.params.doc_id);
      // Kazoo answers `{}` for a participant the conference does not have
      return { data: {} };
    },
  },
];

/** `/v2/accounts/{id}/conferences`: Kazoo's `cb_conferences`, the documents and what runs now. */
export const conferencesModule: TelModule = {
  name: 'conferences',
  endpoints: ['conferences'],
  routes: [...documentRoutes(conferences).filter((r) => !(r.method === 'GET' && r.path === ONE)), ...runningRoutes],
};

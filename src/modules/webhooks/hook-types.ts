import { OBJECT_TYPES } from '../documents/store.js';
import { NOTIFICATION_TYPES } from './notifications.js';

/** The object types an `object` hook can filter on. */
export const OBJECT_HOOK_TYPES: string[] = [...new Set(Object.values(OBJECT_TYPES))].sort();

/** The object actions, as events carry them. */
export const OBJECT_ACTIONS = ['doc_created', 'doc_edited', 'doc_deleted'];

/** Accepted in filters as another name of `doc_edited` (the seed's payload description uses it). */
export const ACTION_ALIASES: Record<string, string> = { doc_updated: 'doc_edited' };

/** One item of `GET /v2/webhooks`. */
export interface HookType {
  id: string;
  name: string;
  description: string;
  modifiers?: Record<string, { description: string; type: 'array' | 'object'; items: unknown }>;
}

/** Every hook type tel fires, in the order the listing shows them. */
export const HOOK_TYPES: HookType[] = [
  { id: 'channel_create', name: 'Channel Create', description: 'A call leg starts (a new call reaches or leaves the account)' },
  { id: 'channel_answer', name: 'Channel Answer', description: 'A call leg is answered by its endpoint' },
  { id: 'channel_bridge', name: 'Channel Bridge', description: 'A call leg is connected to another leg' },
  { id: 'channel_destroy', name: 'Channel Destroy', description: 'A call leg ends; carries the hangup cause and code' },
  {
    id: 'object',
    name: 'Object',
    description: 'A stored object (account, user, device, callflow, …) is created, edited or deleted',
    modifiers: {
      action: { description: 'Only these actions (missing: every action)', type: 'array', items: ['all', ...OBJECT_ACTIONS] },
      type: { description: 'Only this object type (missing: every type)', type: 'array', items: ['all', ...OBJECT_HOOK_TYPES] },
      types: { description: 'Only these object types (missing: every type)', type: 'array', items: OBJECT_HOOK_TYPES },
    },
  },
  { id: 'sms', name: 'SMS', description: 'A text message arrives (tel also fires it for one sent)' },
  { id: 'mms', name: 'MMS', description: 'A multimedia message arrives (tel also fires it for one sent)' },
  { id: 'parking', name: 'Call Parking', description: 'A call is parked, retrieved from a slot or abandoned while parked' },
  {
    id: 'notifications',
    name: 'Notifications',
    description: 'Platform notifications (voicemail, registrations, missed calls, …) as JSON',
    modifiers: {
      type: {
        description: 'Only this notification (missing or "all": every notification)',
        type: 'object',
        items: {
          all: { friendly_name: 'All', description: 'Every notification' },
          ...Object.fromEntries(Object.entries(NOTIFICATION_TYPES).map(([k, t]) => [k, { friendly_name: t.friendly_name, description: t.description }])),
        },
      },
    },
  },
];

/** The ids the `hook` field accepts. */
export const HOOK_IDS = HOOK_TYPES.map((t) => t.id);

/** Hook types fired by call legs (where `include_internal_legs` applies). */
export const CHANNEL_HOOKS = new Set(['channel_create', 'channel_answer', 'channel_bridge', 'channel_destroy']);

import type { Core } from '../../core-type.js';
import { ApiError, errors } from '../../errors.js';
import { transaction } from '../../store/db.js';
import { createResource, resourceJson, updateResource, type Scope } from './service.js';
import { isObject } from '../../util/json.js';

/** Per-item results of a collection request, keyed by resource id. */
export interface CollectionResult {
  successes: Record<string, unknown>;
  errors: Record<string, unknown>;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

function itemError(err: unknown): unknown {
  if (err instanceof ApiError) {
    // A validation error's detail is the Kazoo-shaped field map; others say what went wrong.
    if (err.status === 400) return err.data;
    if (err.status === 404) return 'resource does not exist';
    const d = err.data as { message?: string } | undefined;
    return d?.message ?? err.kazooMessage;
  }
  throw err;
}

/** The items of a collection body: an array, or (for updates) an object keyed by id. */
function itemsOf(data: unknown, keyedAllowed: boolean): unknown[] {
  if (Array.isArray(data)) return data;
  if (keyedAllowed && isObject(data)) return Object.entries(data).map(([id, v]) => (isObject(v) ? { ...v, id } : v));
  throw errors.invalidField('data', 'type', `Value did not match type(s): ${keyedAllowed ? 'array, object' : 'array'}`, {
    target: keyedAllowed ? ['array', 'object'] : 'array',
  });
}

/**
 * `PUT …/resources/collection`: creates every valid resource of the array (an item's `id` is
 * kept, else one is made); an invalid item is reported under its id and blocks nothing else.
 */
export function createCollection(core: Core, scope: Scope, data: unknown): CollectionResult {
  const items = itemsOf(data, false);
  const out: CollectionResult = { successes: {}, errors: {} };
  transaction(core.db, () => {
    items.forEach((item, index) => {
      const given = isObject(item) ? item.id : undefined;
      const key = given === undefined ? undefined : String(given);
      if (!isObject(item)) {
        out.errors[String(index)] = { data: { type: { message: 'Value did not match type(s): object', target: 'object' } } };
        return;
      }
      if (key !== undefined && !ID.test(key)) {
        out.errors[key] = { id: { pattern: { message: `Failed to match pattern '${ID.source}'`, value: given } } };
        return;
      }
      try {
        const created = key === undefined ? createResource(core, scope, item) : createResource(core, scope, item, key);
        out.successes[created.id] = resourceJson(created);
      } catch (err) {
        out.errors[key ?? String(index)] = itemError(err);
      }
    });
  });
  return out;
}

/**
 * `POST …/resources/collection`: merge-patches each resource named by its `id` (an array of
 * partial resources, or an object keyed by id); a missing or invalid one is reported alone.
 */
export function updateCollection(core: Core, scope: Scope, data: unknown): CollectionResult {
  const items = itemsOf(data, true);
  const out: CollectionResult = { successes: {}, errors: {} };
  transaction(core.db, () => {
    items.forEach((item, index) => {
      const id = isObject(item) && typeof item.id === 'string' && item.id !== '' ? item.id : undefined;
      if (!isObject(item) || id === undefined) {
        out.errors[String(index)] = { id: { required: { message: 'Field is required but missing' } } };
        return;
      }
      try {
        out.successes[id] = resourceJson(updateResource(core, scope, id, item, 'merge'));
      } catch (err) {
        out.errors[id] = itemError(err);
      }
    });
  });
  return out;
}

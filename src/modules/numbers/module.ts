import type { TelModule } from '../types.js';
import { pageExtras, pageQueryOf, pagingQuery } from '../../http/paging.js';
import type { Reply } from '../../http/router.js';
import { everyPage, type Page, type PageQuery } from '../../store/pages.js';
import { listNumbers, numberJson, numberJsonText, type NumberRow } from './service.js';
import { E164_CONVERTERS_KEY, NUMBER_MANAGER_CATEGORY } from './converters.js';

/**
 * An account's `number_manager` settings: its `e164_converters` (patterns tel matches numbers
 * against, as a dial plan's) and `classifiers` hold patterns RE2's linear-time engine takes;
 * the rest is kept as sent, as Kazoo keeps it.
 */
const numberManagerSchema = {
  type: 'object',
  properties: {
    [E164_CONVERTERS_KEY]: { type: 'object', 'x-regex-keys': true, additionalProperties: { type: 'object' } },
    classifiers: { type: 'object', additionalProperties: { type: 'object', properties: { regex: { type: 'string', 'x-regex': true } } } },
  },
};

/** Numbers a chunk of a whole inventory (`paginate=false`) holds. */
const NUMBER_CHUNK_ROWS = 1000;

/**
 * The inventory's answer: `{cascade_quantity, numbers: {E.164: …}}` for one page, or for
 * `paginate=false` every number, written a chunk at a time (an inventory of 100,000 numbers is
 * some 20 MB of JSON).
 */
export function numbersReply(query: URLSearchParams, read: (q: PageQuery<string>) => Page<NumberRow, string>): Reply {
  // keys are E.164: a leading space is a `+` the client did not URL-encode
  const q = pageQueryOf(query, (qs) => qs.get('start_key')?.replace(/^ /, '+') || undefined);
  if (q.pageSize !== undefined) {
    const page = read(q);
    const numbers: Record<string, Record<string, unknown>> = {};
    for (const r of page.items) numbers[r.number] = numberJson(r);
    return { data: { cascade_quantity: 0, numbers }, extras: pageExtras(page) };
  }
  const chunks = everyPage(read, { chunkRows: NUMBER_CHUNK_ROWS, first: read({ pageSize: NUMBER_CHUNK_ROWS, startKey: q.startKey }) });
  let count = 0;
  function* pieces(): Generator<string> {
    let text = '{"cascade_quantity":0,"numbers":{';
    // the keys are E.164 numbers, unique in the inventory: written as an object's would be
    for (const rows of chunks) {
      for (const r of rows) text += `${count++ === 0 ? '' : ','}${JSON.stringify(r.number)}:${numberJsonText(r)}`;
      yield text;
      text = '';
    }
    yield `${text}}}`;
  }
  return { stream: { pieces: pieces(), extras: () => ({ page_size: count }) } };
}

/** The account's number inventory: `GET /v2/accounts/{id}/phone_numbers`. */
export const numbersModule: TelModule = {
  name: 'numbers',
  endpoints: ['phone_numbers'],
  accountTables: ['phone_numbers'],
  accountConfigSchemas: { [NUMBER_MANAGER_CATEGORY]: numberManagerSchema },
  routes: [
    {
      method: 'GET',
      path: 'accounts/:account_id/phone_numbers',
      query: [
        ...pagingQuery({ type: 'string', description: 'an E.164 number' }),
        { name: 'filter_state', description: 'only numbers in this state', schema: { type: 'string' } },
      ],
      handler: (ctx, core) => {
        const state = ctx.query.get('filter_state') || undefined;
        return numbersReply(ctx.query, (q) => listNumbers(core, ctx.params.account_id, { ...q, state }));
      },
    },
  ],
};

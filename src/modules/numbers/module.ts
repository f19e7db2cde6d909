import type { TelModule } from '../types.js';
import { filledPage, pageExtras, pageQueryOf, pagingQuery, rowFilterOf } from '../../http/paging.js';
import type { Reply } from '../../http/router.js';
import { everyPage, timedRead, type Page, type PageQuery } from '../../store/pages.js';
import { wholeDoc } from '../../util/doc-filter.js';
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
 * A number as the inventory's filters see it: as listed, with the private fields Kazoo's number
 * documents keep (`pvt_state`, `pvt_assigned_to`: Kazoo's listing renames `filter_state` to
 * `filter_pvt_state`, which both spellings reach here).
 */
function numberFilterDoc(r: NumberRow): Record<string, unknown> {
  const doc = wholeDoc(numberJson(r), { id: r.number, type: 'number', accountId: r.account_id, created: r.created, modified: r.modified });
  doc.pvt_state = r.state;
  doc.pvt_assigned_to = r.account_id;
  return doc;
}

/**
 * The inventory's answer: `{cascade_quantity, numbers: {E.164: …}}` for one page, or for
 * `paginate=false` every number, written a chunk at a time (an inventory of 100,000 numbers is
 * some 20 MB of JSON), without paging keys. The query's filters keep the numbers they keep.
 */
export function numbersReply(query: URLSearchParams, read: (q: PageQuery<string>) => Page<NumberRow, string>): Reply | Promise<Reply> {
  // keys are E.164: a leading space is a `+` the client did not URL-encode
  const q = pageQueryOf(query, (qs) => qs.get('start_key')?.replace(/^ /, '+') || undefined);
  const filter = rowFilterOf(query, numberFilterDoc);
  if (q.pageSize !== undefined) {
    const answer = (page: Page<NumberRow, string>): Reply => {
      const numbers: Record<string, Record<string, unknown>> = {};
      for (const r of page.items) numbers[r.number] = numberJson(r);
      return { data: { cascade_quantity: 0, numbers }, extras: pageExtras(page) };
    };
    if (!filter) return answer(read(q));
    const page = filledPage(read, { ...q, pageSize: q.pageSize, filter });
    return page instanceof Promise ? page.then(answer) : answer(page);
  }
  const first = { pageSize: NUMBER_CHUNK_ROWS, startKey: q.startKey };
  const chunks = everyPage(read, { chunkRows: NUMBER_CHUNK_ROWS, filter, first: filter ? timedRead(read, { ...first, filter }) : read(first) });
  function* pieces(): Generator<string> {
    let text = '{"cascade_quantity":0,"numbers":{';
    let count = 0;
    // the keys are E.164 numbers, unique in the inventory: written as an object's would be
    for (const rows of chunks) {
      for (const r of rows) text += `${count++ === 0 ? '' : ','}${JSON.stringify(r.number)}:${numberJsonText(r)}`;
      yield text;
      text = '';
    }
    yield `${text}}}`;
  }
  return { stream: { pieces: pieces() } };
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
      query: pagingQuery({ type: 'string', description: 'an E.164 number' }),
      handler: (ctx, core) => numbersReply(ctx.query, (q) => listNumbers(core, ctx.params.account_id, q)),
    },
  ],
};

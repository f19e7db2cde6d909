import type { TelModule } from '../types.js';
import type { Core } from '../../core-type.js';
import type { RequestContext } from '../../http/context.js';
import { filledPage, pageExtras, pageQueryOf, pagingQuery, rowFilterOf } from '../../http/paging.js';
import { authOf } from '../../http/request.js';
import type { Reply, RouteDef } from '../../http/router.js';
import { everyPage, timedRead, type Page, type PageQuery } from '../../store/pages.js';
import { acceptedValues, wholeDoc } from '../../util/doc-filter.js';
import { listNumbers, numberJson, numberJsonText, type NumberRow } from './service.js';
import { E164_CONVERTERS_KEY, NUMBER_MANAGER_CATEGORY } from './converters.js';
import { availableFeatures, LOCAL_CARRIER, POOL_CARRIER } from './features.js';
import { poolsOf, returnToPools } from './pool.js';
import { numberRoutes, SEARCH_QUERY, searchAnswer, searchReply } from './routes.js';

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
 * The CPU a piece of a whole inventory may take before it is handed on (the rest of the chunk in
 * the next turn of the event loop), looked at every PIECE_CHECK_ROWS numbers. A server's first
 * whole inventory reads and writes its rows before V8 has optimised that code: its first chunk of
 * 1,000 held the event loop 38 ms (44.6 ms of delay, `scripts/bench/lib/loop-delay.cjs`), the
 * chunks after it 12-16 ms.
 */
const PIECE_MS = 8;
const PIECE_CHECK_ROWS = 50;
/** The numbers of a whole inventory's first read (the others read NUMBER_CHUNK_ROWS). */
const FIRST_CHUNK_ROWS = 100;

/** The features a row may have, as its listing's caller sees them: the same for every row of one account, carrier and user, so worked out once a reply. */
export type AvailableOf = (r: NumberRow) => readonly string[];

/** `features_available` of a listing's rows for a caller (a super-duper admin or not). */
export function availableFor(core: Core, isAdmin: boolean): AvailableOf {
  const known = new Map<string, readonly string[]>();
  return (r) => {
    const carrier = r.pool_id ? POOL_CARRIER : LOCAL_CARRIER;
    const key = `${r.account_id}/${carrier}/${r.used_by ?? ''}`;
    let list = known.get(key);
    if (!list) known.set(key, (list = availableFeatures(core, { accountId: r.account_id, carrier, usedBy: r.used_by, isAdmin })));
    return list;
  };
}

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
 * some 20 MB of JSON), without paging keys. The query's filters keep the numbers they keep. With
 * `available`, each row carries its `features_available`.
 */
export function numbersReply(query: URLSearchParams, read: (q: PageQuery<string>) => Page<NumberRow, string>, available?: AvailableOf): Reply | Promise<Reply> {
  // keys are E.164: a leading space is a `+` the client did not URL-encode
  const q = pageQueryOf(query, (qs) => qs.get('start_key')?.replace(/^ /, '+') || undefined);
  const filter = rowFilterOf(query, numberFilterDoc);
  if (q.pageSize !== undefined) {
    const answer = (page: Page<NumberRow, string>): Reply => {
      const numbers: Record<string, Record<string, unknown>> = {};
      for (const r of page.items) numbers[r.number] = numberJson(r, available?.(r));
      return { data: { cascade_quantity: 0, numbers }, extras: pageExtras(page) };
    };
    if (!filter) return answer(read(q));
    const page = filledPage(read, { ...q, pageSize: q.pageSize, filter });
    return page instanceof Promise ? page.then(answer) : answer(page);
  }
  // the first read is made with the request, before the answer's first piece: a short one
  const first = { pageSize: FIRST_CHUNK_ROWS, startKey: q.startKey };
  const chunks = everyPage(read, { chunkRows: NUMBER_CHUNK_ROWS, filter, first: filter ? timedRead(read, { ...first, filter }) : read(first) });
  function* pieces(): Generator<string> {
    let text = '{"cascade_quantity":0,"numbers":{';
    let count = 0;
    let since = performance.now();
    // the keys are E.164 numbers, unique in the inventory: written as an object's would be
    for (const rows of chunks) {
      for (const r of rows) {
        text += `${count++ === 0 ? '' : ','}${JSON.stringify(r.number)}:${numberJsonText(r, available?.(r))}`;
        if (count % PIECE_CHECK_ROWS === 0 && performance.now() - since >= PIECE_MS) {
          yield text;
          text = '';
          since = performance.now();
        }
      }
      yield text;
      text = '';
      since = performance.now();
    }
    yield `${text}}}`;
  }
  return { stream: { pieces: pieces() } };
}

/** The inventory of the path account as its caller sees it. */
function inventoryReply(ctx: RequestContext, core: Core): Reply | Promise<Reply> {
  // read in the states asked for (one, or a JSON list of them as SmartPBX asks); the filter checks each row again
  const state = ctx.query.get('filter_state') || undefined;
  const states = state === undefined ? undefined : [...acceptedValues(state)];
  return numbersReply(ctx.query, (q) => listNumbers(core, ctx.params.account_id, { ...q, states }), availableFor(core, authOf(ctx).isSuperduper));
}

const inventoryRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: 'accounts/:account_id/phone_numbers',
    query: [
      ...pagingQuery({ type: 'string', description: 'an E.164 number' }),
      { name: 'filter_state', description: 'only numbers in this state, or in one of a JSON list of states', schema: { type: 'string' } },
      ...SEARCH_QUERY,
    ],
    response: {
      anyOf: [
        { type: 'object', required: ['numbers'], properties: { cascade_quantity: { type: 'integer' }, numbers: { type: 'object' } } },
        searchAnswer,
      ],
    },
    // with `prefix`, a search of the pools the account may buy from (Kazoo answers both here)
    handler: (ctx, core) => (ctx.query.get('prefix') ? searchReply(core, ctx.query, poolsOf(core, ctx.params.account_id)) : inventoryReply(ctx, core)),
  },
  {
    method: 'POST',
    path: 'accounts/:account_id/phone_numbers/fix',
    body: { type: 'object', description: 'nothing is read: tel keeps one record a number' },
    response: { type: 'object', required: ['numbers'], properties: { cascade_quantity: { type: 'integer' }, numbers: { type: 'object' } } },
    handler: inventoryReply,
  },
];

/**
 * Numbers: an account's inventory (`GET /v2/accounts/{id}/phone_numbers`), a number's life and
 * document, the simulated carrier's pool (searched, bought from, filled by `tel numbers pool` or a
 * lab file) and the number classes.
 */
export const numbersModule: TelModule = {
  name: 'numbers',
  endpoints: ['phone_numbers'],
  accountTables: ['phone_numbers', 'number_pool'],
  accountConfigSchemas: { [NUMBER_MANAGER_CATEGORY]: numberManagerSchema },
  routes: [...inventoryRoutes, ...numberRoutes],
  init(core) {
    // An account that goes releases its numbers (Kazoo frees them): those bought from a pool go back to it.
    core.bus.subscribe((event) => {
      const p = event.payload;
      if (event.type === 'object' && p.type === 'account' && p.action === 'doc_deleted') returnToPools(core, event.accountId);
    });
  },
};

import { describe, expect, it } from 'vitest';
import { allowedBy, AllowListInvalid, parseAllowList } from './allow.js';
import { compareAnswers } from './compare.js';
import type { RecordedResponse } from './format.js';
import { Generated } from './mapping.js';

const id = (c: string) => c.repeat(32);
const answer = (body: unknown, status = 200, headers: Record<string, string> = { 'content-type': 'application/json' }): RecordedResponse => ({ status, headers, body, body_bytes: 1 });
const envelope = (data: unknown, extra: Record<string, unknown> = {}) => ({ data, status: 'success', node: 'a', request_id: id('e'), timestamp: '2026-01-01T00:00:00', version: '4.3', ...extra });
const fields = (r: { differences: { field: string }[] }) => r.differences.map((d) => d.field);

describe('comparing a recorded answer with the replayed one', () => {
  it('maps what each server generated, then holds the replay to it', () => {
    const gen = new Generated();
    const first = compareAnswers(
      answer(envelope({ id: id('a'), name: 'Lab', realm: 'aaaaaaaa.tel.local', created: 63_900_000_000 }, { revision: id('b'), auth_token: 'redacted:token:0123456789ab' })),
      answer(envelope({ id: id('c'), name: 'Lab', realm: 'cccccccc.tel.local', created: 63_911_111_111 }, { node: 'b', version: '0.1.0', revision: id('d'), auth_token: 'eyJa.eyJb.sig' })),
      gen,
    );
    expect(first.differences).toEqual([]);
    expect(gen.get(id('a'))).toBe(id('c'));
    expect(gen.substitute(`/v2/accounts/${id('a')}/users?t=redacted:token:0123456789ab`)).toBe(`/v2/accounts/${id('c')}/users?t=eyJa.eyJb.sig`);
    // the same recorded id must come back as its counterpart, and a new id must not be one already taken
    const second = compareAnswers(answer(envelope({ id: id('a'), owner_id: id('f') })), answer(envelope({ id: id('9'), owner_id: id('c') })), gen);
    expect(second.differences).toEqual([
      { field: 'data.id', recorded: id('a'), replayed: id('9') },
      { field: 'data.owner_id', recorded: id('f'), replayed: id('c') },
    ]);
  });

  it('names what differs in shape or value, status first', () => {
    const gen = new Generated();
    const r = compareAnswers(
      answer(envelope({ name: 'CRM', retries: 2, enabled: true, group: 'x', tags: ['a'] }, { page_size: 1 })),
      answer(envelope({ name: 'CRM', retries: 3, enabled: 'true', tags: ['a', 'b'], extra: null }, { page_size: 1 })),
      gen,
    );
    expect(r.differences).toEqual([
      { field: 'data.retries', recorded: 2, replayed: 3 },
      { field: 'data.enabled', recorded: true, replayed: 'true' },
      { field: 'data.group', recorded: 'x', replayed: undefined },
      { field: 'data.tags.1', recorded: undefined, replayed: 'b' },
      { field: 'data.extra', recorded: undefined, replayed: null },
    ]);
    const status = compareAnswers(answer(envelope({ a: 1 })), answer({ data: {}, message: 'bad_identifier', status: 'error' }, 404), gen);
    expect(status.differences).toEqual([
      { field: 'http.status', recorded: 200, replayed: 404 },
      { field: 'message', recorded: undefined, replayed: 'bad_identifier' },
    ]);
    const type = compareAnswers(answer(envelope({})), answer(envelope({}), 200, { 'content-type': 'application/json; charset=utf-8' }), gen);
    expect(fields(type)).toEqual([]);
    expect(fields(compareAnswers(answer(envelope({})), answer(envelope({}), 200, { 'content-type': 'text/html' }), gen))).toEqual(['http.content-type']);
  });

  it("matches a listing's rows by id (through the mapping), then by name, so that their order does not count", () => {
    const gen = new Generated();
    gen.learn(id('1'), id('7'));
    const recorded = [
      { id: id('1'), name: 'alpha', enabled: true },
      { id: id('2'), name: 'beta', enabled: true },
      { id: id('3'), name: 'gamma', enabled: true },
    ];
    const replayed = [
      { id: id('8'), name: 'gamma', enabled: true },
      { id: id('9'), name: 'beta', enabled: false },
      { id: id('7'), name: 'alpha', enabled: true },
    ];
    expect(compareAnswers(answer(envelope(recorded)), answer(envelope(replayed)), gen).differences).toEqual([{ field: 'data.1.enabled', recorded: true, replayed: false }]);
    expect(gen.get(id('2'))).toBe(id('9'));
    expect(gen.get(id('3'))).toBe(id('8'));
  });

  it('takes times of one kind as the same, never one kind for another', () => {
    const gen = new Generated();
    const same = compareAnswers(
      answer(envelope({ created: 63_900_000_000, modified: 63_900_000_001, exp: 1_796_000_000, at: '2026-12-05T02:42:33Z', count: 3 })),
      answer(envelope({ created: 63_911_111_111, modified: 63_911_111_119, exp: 1_797_000_000, at: '2027-01-01T00:00:00Z', count: 3 })),
      gen,
    );
    expect(same.differences).toEqual([]);
    const kinds = compareAnswers(answer(envelope({ created: 63_900_000_000, count: 3 })), answer(envelope({ created: 1_796_000_000, count: 4 })), gen);
    expect(fields(kinds)).toEqual(['data.created', 'data.count']);
  });

  it('reads generated values inside text: a URL with ids, the host the client used, a revision number', () => {
    const gen = new Generated();
    gen.addHost('127.0.0.1:8001', '127.0.0.1:9999');
    const r = compareAnswers(
      answer(envelope({ api_url: 'http://127.0.0.1:8001/v2/', uri: `/v2/accounts/${id('a')}/vmboxes/${id('b')}`, rev: `2-${id('d')}` })),
      answer(envelope({ api_url: 'http://127.0.0.1:9999/v2/', uri: `/v2/accounts/${id('c')}/vmboxes/${id('e')}`, rev: `2-${id('f')}` })),
      gen,
    );
    expect(r.differences).toEqual([]);
    expect(gen.get(id('b'))).toBe(id('e'));
    const rev = compareAnswers(answer(envelope({ rev: `3-${id('1')}` })), answer(envelope({ rev: `1-${id('2')}` })), gen);
    expect(fields(rev)).toEqual(['data.rev']);
  });
});

describe('the allow-list', () => {
  const rules = parseAllowList(`
# known differences
data.*.pvt_modified
/v2/accounts/*/webhooks data.retries      # tel's default
GET /v2/about data.**
`);

  it('matches a field anywhere, on a path, for a method', () => {
    expect(allowedBy(rules, 'GET', '/v2/accounts/a', 'data.x.pvt_modified')?.line).toBe(3);
    expect(allowedBy(rules, 'GET', '/v2/accounts/a', 'data.pvt_modified')).toBeUndefined();
    expect(allowedBy(rules, 'PUT', '/v2/accounts/abc/webhooks', 'data.retries')?.text).toBe('/v2/accounts/*/webhooks data.retries');
    expect(allowedBy(rules, 'PUT', '/v2/accounts/abc/x/webhooks', 'data.retries')).toBeUndefined();
    expect(allowedBy(rules, 'GET', '/v2/about', 'data.version.major')?.line).toBe(5);
    expect(allowedBy(rules, 'POST', '/v2/about', 'data.version')).toBeUndefined();
  });

  it('names the line it cannot read', () => {
    expect(() => parseAllowList('data.a\nGET data.b')).toThrow(new AllowListInvalid('line 2: a path starts with / (or *), not "GET"'));
    expect(() => parseAllowList('a b c d')).toThrow(AllowListInvalid);
  });
});

import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../util/json.js';
import { labText } from './export.js';
import { LabInvalid, parseLabText, type Problem } from './parse.js';

/** The problems parsing `text` as `file` gives (none: the parse succeeded). */
async function problems(text: string, file = 'lab.yaml'): Promise<Problem[]> {
  try {
    await parseLabText(text, file);
    return [];
  } catch (err) {
    if (err instanceof LabInvalid) return err.problems;
    throw err;
  }
}

const nested = (levels: number) => `version: 1\naccount:\n  name: Lab\n  custom: ${'['.repeat(levels)}1${']'.repeat(levels)}\n`;

describe('reading a lab file', () => {
  it.each([
    ['an unclosed flow list', 'account:\n  name: [unclosed\n', 3, 1],
    ['a key given twice', 'version: 1\naccount:\n  name: Lab\n  name: Other\n', 4, 3],
    ['a key given twice deep inside', 'account:\n  users:\n    - username: a\n      first_name: A\n      first_name: B\n', 5, 7],
    ['a mis-indented key', 'account:\n  name: Lab\n   realm: x\n', 3, 9],
    ['a tab as indentation', 'account:\n\tname: Lab\n', 2, 1],
    ['an alias to no anchor', 'account:\n  name: *nope\n', 2, 10],
    ['a tag tel does not know', 'account:\n  name: !!binary aGVsbG8=\n', 2, 9],
  ])('%s is one problem naming the file, the line and the column', async (_what, text, line, column) => {
    const found = await problems(text, 'syntax.yaml');
    expect(found).toHaveLength(1);
    expect(found[0].path).toBe('syntax.yaml');
    expect(found[0].message).toMatch(new RegExp(`^\\S.* at line ${line}, column ${column}$`));
  });

  it('reads YAML 1.2: yes, on, dates and 1_000 stay strings; 012 and 0o12 are numbers; ~ and an empty value are null', async () => {
    const text = 'a: yes\nb: on\nc: 2024-01-01\nd: 1_000\ne: 012\nf: 0o12\ng: 0x1F\nh: ~\ni:\nj: "012"\nk: .inf\nl: True\n';
    expect(await parseLabText(text, 'lab.yaml')).toEqual({ a: 'yes', b: 'on', c: '2024-01-01', d: '1_000', e: 12, f: 10, g: 31, h: null, i: null, j: '012', k: Infinity, l: true });
    // `<<` is an ordinary key in YAML 1.2: no merging
    expect(await parseLabText('base: &b { x: 1 }\nuse:\n  <<: *b\n  y: 2\n', 'lab.yaml')).toEqual({ base: { x: 1 }, use: { '<<': { x: 1 }, y: 2 } });
  });

  it('an empty file is no lab (the reader says what one is); a file of two documents is refused', async () => {
    expect(await parseLabText('', 'lab.yaml')).toBeNull();
    expect(await parseLabText('# only a comment\n', 'lab.yaml')).toBeNull();
    expect(await problems('version: 1\n---\nversion: 1\n')).toEqual([{ path: 'lab.yaml', message: 'holds 2 YAML documents (--- starts one): a lab file is one' }]);
  });

  it('refuses an alias bomb without expanding it, and a file whose aliases refer to themselves; reads a lab that reuses blocks', async () => {
    // billion laughs: nine lines whose aliases stand for 9⁹ strings
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [prev, next] of ['ab', 'bc', 'cd', 'de', 'ef', 'fg', 'gh', 'hi']) laughs.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`);
    expect(await problems(`${laughs.join('\n')}\n`, 'bomb.yaml')).toEqual([{ path: 'bomb.yaml', message: 'its aliases (*name) stand for more than 100,000 characters: refused as an alias bomb' }]);
    // a chain that doubles at each of 60 anchors (2⁶⁰ strings), within the nesting allowed
    const chain = ['l0: &l0 [x, x]', ...Array.from({ length: 60 }, (_, i) => `l${i + 1}: &l${i + 1} [*l${i}, *l${i}]`)];
    expect((await problems(`${chain.join('\n')}\n`))[0].message).toMatch(/refused as an alias bomb$/);
    // an anchor used inside itself makes a value that contains itself
    expect(await problems('account: &a\n  name: Lab\n  x: *a\n')).toEqual([{ path: 'lab.yaml', message: `nests mappings and lists more than ${MAX_JSON_DEPTH} levels deep` }]);

    const users = Array.from({ length: 1000 }, (_, i) => `    - { username: u${i}, first_name: U, last_name: "${i}", caller_id: *cid }`);
    const reused = (await parseLabText(`version: 1\nanchors:\n  cid: &cid { internal: { name: Desk, number: "1000" } }\naccount:\n  users:\n${users.join('\n')}\n`, 'lab.yaml')) as {
      account: { users: { caller_id: unknown }[] };
    };
    expect(reused.account.users).toHaveLength(1000);
    expect(reused.account.users[999].caller_id).toEqual({ internal: { name: 'Desk', number: '1000' } });
  });

  it('refuses a __proto__ key wherever it is, in YAML and in JSON, named by its path', async () => {
    expect(await problems('__proto__: { polluted: 1 }\naccount:\n  name: Lab\n')).toEqual([{ path: '__proto__', message: 'not a key a lab file may hold' }]);
    expect(await problems('account:\n  name: Lab\n  users:\n    - username: a\n      "__proto__": { priv_level: admin }\n')).toEqual([
      { path: 'account.users[0].__proto__', message: 'not a key a lab file may hold' },
    ]);
    expect(await problems('{"account": {"name": "Lab", "devices": [{"name": "d", "sip": {"__proto__": {"x": 1}}}]}}', 'lab.json')).toEqual([
      { path: 'account.devices[0].sip.__proto__', message: 'not a key a lab file may hold' },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`reads nesting ${MAX_JSON_DEPTH} levels deep, refuses one more with its line, and 20,000 without running out of stack`, async () => {
    // the root mapping and `account` are two levels
    expect(await problems(nested(MAX_JSON_DEPTH - 2))).toEqual([]);
    expect(await problems(nested(MAX_JSON_DEPTH - 1))).toEqual([{ path: 'lab.yaml', message: `nests mappings and lists more than ${MAX_JSON_DEPTH} levels deep at line 4, column 74` }]);
    expect((await problems(nested(20_000)))[0].message).toMatch(/^nests mappings and lists more than 64 levels deep at line 4/);
  });

  it('reads back what tel export writes, whatever the strings hold', async () => {
    const strings = ['', ' lead', 'trail ', 'yes', 'off', '012', '0x1F', '1_000', '2024-01-01', '12:30', '~', 'null', '- a', '--- a', '...', '? a', 'a: b', 'a #b', '#a', '*a', '&a', '!a', '%a', '@a', '`a', '|', '>', "'", '"', 'a\nb', 'a\n', '\ttab', 'é 日本 😀', '\u001b[31m', '\u2028', '{{accounts.Lab.id}}', 'x'.repeat(500), 'word '.repeat(40)];
    const lab = { version: 1, account: { name: 'Lab', custom: Object.fromEntries(strings.map((s, i) => [s || 'empty', { i, s, list: [s, { [s || 'k']: s }] }])) } };
    expect(await parseLabText(await labText(lab, 'yaml'), 'lab.yaml')).toEqual(lab);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchor } from '../src/docs/markdown.js';
import { ROOT } from './helpers/doc-examples.js';

/** README and every page of docs/, by their path in the repository. */
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const DOCS = PAGES.filter((p) => p.startsWith('docs/'));

const read = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

/** A page's text outside fenced blocks, line by line (fenced lines become empty, so line numbers hold). */
function prose(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) {
      fence = open[1];
      return '';
    }
    if (fence !== null) {
      if (new RegExp(`^\\s{0,3}${fence[0]}{${fence.length},}\\s*$`).test(line)) fence = null;
      return '';
    }
    return line;
  });
}

/** The anchors GitHub gives a page's headings (a repeated heading gets -1, -2, …). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = anchor(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** A page's links that stay in the repository: `[text](target)` outside code, with their line. */
function relativeLinks(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(markdown).forEach((text, i) => {
    const withoutCode = text.replace(/(`+)[\s\S]*?\1/g, '');
    for (const m of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) out.push({ line: i + 1, target: m[1] });
    }
  });
  return out;
}

/** What is wrong with a relative link of `page`, or null when it resolves (to a file, and its heading). */
function brokenLink(page: string, target: string): string | null {
  const [path, fragment] = target.split('#', 2);
  const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
  if (relative(ROOT, join(ROOT, file)).startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(join(ROOT, file))) return `${target}: no file ${file}`;
  if (fragment === undefined) return null;
  if (!file.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
  return anchors(read(file)).has(fragment) ? null : `${target}: ${file} has no heading whose anchor is #${fragment}`;
}

/** The lines of README's section under `## heading`, up to the next `## `. */
function readmeSection(heading: string): string {
  const lines = read('README.md').split('\n');
  const start = lines.indexOf(`## ${heading}`);
  expect(start, `README has a "## ${heading}" section`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end === -1 ? lines.length : end).join('\n');
}

describe('the docs hold together', () => {
  it('every relative link of README and docs/ points to a file of the repository, and to a heading of it when it names one', () => {
    const broken = PAGES.flatMap((page) =>
      relativeLinks(read(page)).flatMap(({ line, target }) => {
        const why = brokenLink(page, target);
        return why ? [`${page}:${line}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
    // the check sees links at all: README links pages, and pages link each other's headings
    expect(relativeLinks(read('README.md')).length).toBeGreaterThan(DOCS.length);
    expect(DOCS.flatMap((p) => relativeLinks(read(p))).some((l) => l.target.includes('.md#'))).toBe(true);
  });

  it("README's map of the docs links every page of docs/, and only pages that exist", () => {
    const mapped = relativeLinks(readmeSection('The docs')).map((l) => l.target.split('#')[0]);
    expect([...new Set(mapped)].sort()).toEqual(DOCS.slice().sort());
  });

  it('README stays a front page: at most 250 lines, install, start and test first', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm install\b/);
    expect(firstBlock).toMatch(/^npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
    // CI runs the same test command the README shows
    expect(read('.ci/run')).toMatch(/^npm test$/m);
  });

  it('README says why each dependency of package.json is there, one line each', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const section = readmeSection('Why each dependency');
    const missing = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter(
      (name) => !section.split('\n').some((line) => line.startsWith('- ') && line.includes(`\`${name}\``)),
    );
    expect(missing).toEqual([]);
  });

  it('the link checker: finds broken files and anchors, skips code and outside addresses', () => {
    const page = ['# Top', '## A `b`: c', '## A `b`: c', '[x](#a-b-c-1) [y](https://example.com/x) `[z](nowhere.md)`', '```', '[w](nowhere.md)', '```', '[v](#none)'].join('\n');
    expect(anchors(page)).toEqual(new Set(['top', 'a-b-c', 'a-b-c-1']));
    expect(relativeLinks(page)).toEqual([
      { line: 4, target: '#a-b-c-1' },
      { line: 8, target: '#none' },
    ]);
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toMatch(/no file docs\/no-such-page\.md/);
    expect(brokenLink('docs/webhooks.md', '../README.md#no-such-heading')).toMatch(/README\.md has no heading/);
    expect(brokenLink('docs/webhooks.md', '../README.md#first-steps')).toBeNull();
    expect(brokenLink('docs/webhooks.md', '../../etc/passwd')).toMatch(/leaves the repository/);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** Every source file under src/ (tests excluded), as a path relative to the project. */
function sources(dir = src): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [relative(root, p)] : [];
  });
}

/** The project files a source file imports (type-only imports included: they are dependencies too). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map(
    (m) => m[1],
  );
  return specs.map((s) => normalize(join(dirname(file), s)).replace(/\.js$/, '.ts'));
}

const graph = new Map(sources().map((f) => [f, importsOf(f)]));
const under = (dir: string) => (f: string) => f.startsWith(`src/${dir}/`);
const isService = (f: string) => f.endsWith('/service.ts');

/** The edges from files matching `from` to files matching `to`, as `a -> b`. */
function edges(from: (f: string) => boolean, to: (f: string) => boolean): string[] {
  return [...graph].flatMap(([f, deps]) => (from(f) ? deps.filter(to).map((d) => `${f} -> ${d}`) : []));
}

describe('the layers of the code', () => {
  it('reads a real graph (the check would pass on nothing otherwise)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/http/server.ts')).toContain('src/errors.ts');
  });

  it('no store, jobs, delivery or service file imports the HTTP layer', () => {
    expect(edges((f) => under('store')(f) || under('jobs')(f) || under('delivery')(f) || isService(f), under('http'))).toEqual([]);
  });

  it('the store imports nothing above it (only itself and util/)', () => {
    expect(edges(under('store'), (d) => !under('store')(d) && !under('util')(d) && d !== 'src/errors.ts')).toEqual([]);
  });

  it('the delivery engine imports nothing from the modules', () => {
    expect(edges(under('delivery'), under('modules'))).toEqual([]);
  });

  it('the sink imports nothing from the faces (HTTP, CLI, live view)', () => {
    expect(edges(under('sink'), (d) => under('http')(d) || under('cli')(d) || under('tui')(d))).toEqual([]);
  });

  it('the recorder and the replay import nothing from the faces (HTTP, CLI, live view)', () => {
    expect(edges(under('recording'), (d) => under('http')(d) || under('cli')(d) || under('tui')(d))).toEqual([]);
  });

  it('the completion scripts are made without the faces (the CLI hands them its program)', () => {
    expect(edges(under('completion'), (d) => under('http')(d) || under('cli')(d) || under('tui')(d))).toEqual([]);
  });

  it('the live view imports nothing from the CLI', () => {
    expect(edges(under('tui'), under('cli'))).toEqual([]);
  });
});

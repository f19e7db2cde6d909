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
/**
 * A module's HTTP adapters: its routes, its declaration, its request checks (`authorize.ts`), and the
 * list and type of modules. Every other file of a module is part of its services.
 */
const isAdapter = (f: string) => /^src\/modules\/(?:[^/]+\/(?:routes|module|authorize)|index|types)\.tsx?$/.test(f);
const isService = (f: string) => under('modules')(f) && !isAdapter(f);

/** The edges from files matching `from` to files matching `to`, as `a -> b`. */
function edges(from: (f: string) => boolean, to: (f: string) => boolean): string[] {
  return [...graph].flatMap(([f, deps]) => (from(f) ? deps.filter(to).map((d) => `${f} -> ${d}`) : []));
}

/** The cycles of imports among the files `inside` picks, each as `a -> b -> … -> a` (one per cycle's first file). */
function cycles(inside: (f: string) => boolean): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (f: string, path: string[]): void => {
    const at = path.indexOf(f);
    if (at >= 0) {
      found.push([...path.slice(at), f].join(' -> '));
      return;
    }
    if (done.has(f)) return;
    for (const d of graph.get(f) ?? []) if (inside(d)) visit(d, [...path, f]);
    done.add(f);
  };
  for (const f of graph.keys()) if (inside(f)) visit(f, []);
  return found;
}

describe('the layers of the code', () => {
  it('reads a real graph (the check would pass on nothing otherwise)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/http/server.ts')).toContain('src/errors.ts');
  });

  it("tells a module's services from its HTTP adapters", () => {
    expect(['src/modules/webhooks/service.ts', 'src/modules/documents/crud.ts', 'src/modules/documents/files.ts'].every(isService)).toBe(true);
    expect(['src/modules/webhooks/routes.ts', 'src/modules/about/module.ts', 'src/modules/token-restrictions/authorize.ts'].some(isService)).toBe(false);
  });

  it("no store, jobs or delivery file, nor any of a module's services, imports the HTTP layer", () => {
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

  it("the CLI's files import each other without a cycle (a command's module, then what it uses)", () => {
    expect(cycles((f) => f === 'src/modules/index.ts' || under('modules')(f))).not.toEqual([]); // the check finds cycles where there are some
    expect(cycles(under('cli'))).toEqual([]);
  });

  it('each module folder declares itself in its own module.ts, and the list of modules imports each', () => {
    const folders = readdirSync(join(src, 'modules'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.length).toBeGreaterThan(20);
    expect(folders.filter((name) => !graph.has(`src/modules/${name}/module.ts`))).toEqual([]);
    const listed = graph.get('src/modules/index.ts')!.filter((d) => d !== 'src/modules/types.ts');
    expect(listed.filter((d) => !/^src\/modules\/[^/]+\/module\.ts$/.test(d))).toEqual([]);
    expect(folders.filter((name) => !listed.includes(`src/modules/${name}/module.ts`))).toEqual([]);
  });
});

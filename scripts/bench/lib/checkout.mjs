// Another commit of tel beside this checkout, for A/B benchmarks: a temporary git worktree of the
// commit sharing this checkout's node_modules (the commit's own lock must name the same versions
// of what tel loads at run time: `prepareCheckout` refuses otherwise), bundled as `npm install`
// would, and the command line its own `bin/tel.js` starts Node with.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This checkout's root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const git = (args, cwd = root) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The versions a package-lock.json text pins for the packages tel loads at run time. */
function runtimeVersions(lockText) {
  const lock = JSON.parse(lockText);
  const deps = Object.keys(lock.packages?.['']?.dependencies ?? {});
  return Object.fromEntries(deps.map((d) => [d, lock.packages?.[`node_modules/${d}`]?.version ?? null]));
}

/**
 * A checkout of `ref` ready to run: `.` is this checkout as it is (uncommitted changes included);
 * any other ref becomes a temporary worktree, removed by `cleanup()`. Answers {dir, ref, sha, label}.
 */
export function prepareCheckout(ref, { log = () => {} } = {}) {
  if (ref === '.') {
    const sha = git(['rev-parse', '--short', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    bundle(root, log);
    return { dir: root, ref, sha, label: `.(${sha}${dirty ? '+' : ''})`, cleanup() {} };
  }
  const sha = git(['rev-parse', '--short', `${ref}^{commit}`]);
  const mine = runtimeVersions(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const theirs = runtimeVersions(git(['show', `${sha}:package-lock.json`]));
  for (const [name, version] of Object.entries(theirs)) {
    if (name in mine && mine[name] !== version) {
      throw new Error(`${ref} locks ${name} ${version}, this checkout ${mine[name]}: install that commit yourself and pass its directory`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), `tel-ref-${sha}-`));
  rmSync(dir, { recursive: true });
  git(['worktree', 'add', '--detach', dir, sha]);
  const cleanup = () => {
    try {
      git(['worktree', 'remove', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      try { git(['worktree', 'prune']); } catch { /* */ }
    }
  };
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    bundle(dir, log);
  } catch (err) {
    cleanup();
    throw err;
  }
  return { dir, ref, sha, label: ref === sha ? sha : `${ref}(${sha})`, cleanup };
}

/** A directory given by path (an installed checkout of any commit). */
export function existingCheckout(dir) {
  const abs = resolve(dir);
  if (!existsSync(join(abs, 'bin/tel.js'))) throw new Error(`${dir} holds no bin/tel.js`);
  const sha = git(['rev-parse', '--short', 'HEAD'], abs);
  return { dir: abs, ref: dir, sha, label: `${dir}(${sha})`, cleanup() {} };
}

function bundle(dir, log) {
  log(`bundling ${dir}`);
  execFileSync(join(root, 'node_modules/.bin/node'), ['scripts/bundle.mjs', '--quiet'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * How `bin/tel.js` of a checkout starts: its shebang's environment and Node flags, run on the
 * project's Node. Answers {node, args, env} for `spawn(node, [...args, ...telArgs], {env})`.
 */
export function telCommand(dir) {
  const script = join(dir, 'bin/tel.js');
  const shebang = readFileSync(script, 'utf8').split('\n')[0];
  const words = shebang.replace(/^#!\s*\S*env\s+(-S\s+)?/, '').split(/\s+/).filter(Boolean);
  const env = {};
  const flags = [];
  let seenNode = false;
  for (const w of words) {
    if (!seenNode && /^[A-Z_]+=/.test(w)) env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
    else if (!seenNode && w === 'node') seenNode = true;
    else if (seenNode) flags.push(w);
  }
  return { node: join(root, 'node_modules/.bin/node'), args: [...flags, script], env };
}

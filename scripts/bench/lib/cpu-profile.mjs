// What a V8 CPU profile (`node --cpu-prof`) spent in each function: shared by profile-top.mjs and
// profile-diff.mjs.
import { readFileSync } from 'node:fs';

/**
 * The self and total weight of each function of the profile in `file`, keyed by `key(callFrame)`:
 * `weigh(i)` is sample i's weight (1 to count samples, its time delta for µs). A sample counts once
 * in the total of every distinct function on its stack.
 */
export function functionWeights(file, key, weigh = () => 1) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byNode = new Map();
  profile.samples.forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + weigh(i, profile)));
  const self = new Map();
  const total = new Map();
  let all = 0;
  for (const [id, w] of byNode) {
    all += w;
    const k = key(nodes.get(id).callFrame);
    self.set(k, (self.get(k) ?? 0) + w);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const kk = key(nodes.get(at).callFrame);
      if (seen.has(kk)) continue;
      seen.add(kk);
      total.set(kk, (total.get(kk) ?? 0) + w);
    }
  }
  return { self, total, all, samples: profile.samples.length };
}

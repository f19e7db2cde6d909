import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mallocTrim } from './malloc-trim.js';

const hasCompiler = spawnSync(process.env.CC || 'cc', ['--version']).status === 0;
const rssMb = () => process.memoryUsage.rss() / 1024 / 1024;

describe.skipIf(process.platform !== 'linux' || !hasCompiler)('glibc heap trimming (native/malloc-trim.c)', () => {
  it('is built where a C compiler is, and hands back memory freed below blocks still in use', () => {
    const trim = mallocTrim();
    expect(trim, 'dist/malloc-trim.node was built (scripts/bundle.mjs) and loads').toBeTypeOf('function');
    trim!();
    // 100 MB of 64 KB blocks from glibc's heap, each followed by a small one that stays; freeing
    // the large ones (a transfer to nothing frees a buffer's memory at once) leaves them free
    // below memory in use, where glibc keeps them
    const kept: Buffer[] = [];
    const freed: ArrayBuffer[] = [];
    for (let i = 0; i < 1600; i++) {
      const block = Buffer.allocUnsafeSlow(64 * 1000);
      block.fill(1);
      freed.push(block.buffer);
      kept.push(Buffer.allocUnsafeSlow(2000).fill(2));
    }
    for (const buffer of freed) (buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0); // ES2024, past the project's lib
    const before = rssMb();
    expect(trim!()).toBe(true);
    const after = rssMb();
    expect(before - after, `RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB`).toBeGreaterThan(60);
    expect(kept.every((b) => b[0] === 2 && b.at(-1) === 2)).toBe(true);
  });
});

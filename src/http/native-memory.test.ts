import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { executableMemory } from '../../test/helpers/smaps.js';
import { nativeMemory } from './native-memory.js';

const hasCompiler = spawnSync(process.env.CC || 'cc', ['--version']).status === 0;
const rssMb = () => process.memoryUsage.rss() / 1024 / 1024;

describe.skipIf(process.platform !== 'linux' || !hasCompiler)('the memory addon (native/memory.c)', () => {
  it('is built where a C compiler is, and hands back memory freed below blocks still in use', () => {
    const trim = nativeMemory()?.trim;
    expect(trim, 'dist/memory.node was built (scripts/bundle.mjs) and loads').toBeTypeOf('function');
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

  it("takes the executable's code out of the resident set, and the process runs on", () => {
    const native = nativeMemory()!;
    const before = executableMemory();
    expect(native.releaseCode()).toBeGreaterThan(before.readOnly.resident * 1024);
    const after = executableMemory();
    // what this process runs meanwhile comes back at once (the reading of smaps itself)
    expect(after.readOnly.resident, `${before.readOnly.resident} → ${after.readOnly.resident} KB`).toBeLessThan(before.readOnly.resident / 2);
    // the pages the process wrote are left as they were
    expect(after.writable.resident).toBe(before.writable.resident);
    // the code runs on from the page cache, and so do its calls into the C library through the
    // loader's relocations (left as they were): V8's builtins, OpenSSL, the regular expression engine
    expect(createHash('sha256').update('tel').digest('hex')).toBe('f4313db688f3f006050627de322e91718c211df16f74f53888c4aa109ef3ac58');
    expect(JSON.parse(JSON.stringify({ a: [1, 'b'] }))).toEqual({ a: [1, 'b'] });
    expect(/^(\d+)-(\w+)$/.exec('42-tel')?.slice(1)).toEqual(['42', 'tel']);
  });

  it('leaves the dynamic loader alone when Node was started through it (the loader is then the executable)', () => {
    const loader = readFileSync('/proc/self/maps', 'utf8').match(/\/\S*\/ld-linux[^/\s]*\.so[.\d]*/)?.[0];
    expect(loader, 'the dynamic loader among this process\'s mappings').toBeDefined();
    const addon = fileURLToPath(new URL('../../dist/memory.node', import.meta.url));
    // released, then the loader's own work (a library loaded, its symbols bound) and a hash
    const script = `const m = { exports: {} }; process.dlopen(m, ${JSON.stringify(addon)}); const n = m.exports.releaseCode();
      require('node:zlib').gzipSync(Buffer.alloc(1e6)); process.dlopen({ exports: {} }, ${JSON.stringify(addon)});
      console.log(n, require('node:crypto').createHash('sha256').update('tel').digest('hex'));`;
    const run = spawnSync(loader!, [process.execPath, '-e', script], { encoding: 'utf8' });
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(run.stdout.trim()).toBe('0 f4313db688f3f006050627de322e91718c211df16f74f53888c4aa109ef3ac58');
  });
});

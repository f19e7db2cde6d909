import { describe, expect, it } from 'vitest';
import { runCli } from './program.js';
import { schemaCompilations } from '../schema/compilations.js';

describe('start-up does only what the command needs', () => {
  it("tel --help and a subcommand's --help (its module loaded) compile no JSON Schema", async () => {
    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s), isTTY: false };
    expect(await runCli(['--help'], io)).toBe(0);
    expect(await runCli(['webhooks', 'create', '--help'], io)).toBe(0);
    expect(out.join('\n')).toMatch(/Usage: tel/);
    expect(schemaCompilations()).toBe(0);
    // the count is real: the first document checked compiles its schema
    const { validateWebhook } = await import('../modules/webhooks/schema.js');
    expect(() => validateWebhook({})).toThrow();
    expect(schemaCompilations()).toBe(1);
  });
});

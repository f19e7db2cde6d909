import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installQueryLog, logged, planOf, wholeTableSteps } from '../../test/helpers/query-log.js';
import { runTel } from '../../test/helpers/cli.js';
import { tempDir } from '../../test/helpers/server.js';
import { closeCore, openCore } from '../core.js';
import { listAccounts } from '../modules/accounts/service.js';
import { activateNumber } from '../modules/numbers/lifecycle.js';
import { applyPlan, ApplyFailed } from './apply.js';
import { planLab } from './plan.js';
import { parseLabText } from './parse.js';
import { readLab } from './read.js';

installQueryLog();

/** A lab of `accounts` customers under the root, each with a sub-account, two devices and a hook. */
function labText(accounts: number): string {
  const customers = Array.from({ length: accounts }, (_, i) => `    - name: Customer ${i}
      devices:
        - name: Phone ${i}a
        - name: Phone ${i}b
      webhooks:
        - name: CRM ${i}
          uri: http://127.0.0.1:9/crm/${i}
          hook: channel_create
      children:
        - name: Site ${i}`);
  return `version: 1\naccount:\n  name: Lab\n  children:\n${customers.join('\n')}\n`;
}

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('tel-lab-scale-');
});
afterEach(() => tmp.cleanup());

describe('tel apply at the size of a large lab', () => {
  it('plans an unchanged lab in as many statements at ten times the accounts (one read per kind, not per account)', async () => {
    const db = join(tmp.dir, 'lab.db');
    const statements: number[] = [];
    for (const accounts of [20, 200]) {
      const file = join(tmp.dir, `lab-${accounts}.yaml`);
      writeFileSync(file, labText(accounts));
      const created = await runTel(['apply', file, '--db', db]);
      expect(created.code, created.stderr).toBe(0);
      const { result: again, queries } = await logged(() => runTel(['apply', file, '--db', db]));
      expect(again.stdout).toContain('No changes');
      // the row caches read the change counter when a millisecond has passed since their last
      // reading: a slower run makes more of those, however many accounts it plans
      statements.push(queries.filter((q) => q.sql !== 'PRAGMA data_version').length);
    }
    expect(statements[1]).toBeLessThanOrEqual(statements[0] + 5);
  });

  it("exports a lab whose accounts bought numbers from a pool reading the pool's numbers through indexes, never the whole inventory", async () => {
    const db = join(tmp.dir, 'pool.db');
    const file = join(tmp.dir, 'pool.yaml');
    const numbers = Array.from({ length: 20 }, (_, i) => `+1415555${String(1000 + i)}`);
    writeFileSync(file, `${labText(10)}  number_pool:\n${numbers.map((n) => `    - number: "${n}"\n`).join('')}`);
    const created = await runTel(['apply', file, '--db', db]);
    expect(created.code, created.stderr).toBe(0);
    const core = openCore(db);
    try {
      const customer = listAccounts(core).find((a) => a.name === 'Customer 3')!;
      activateNumber(core, { accountId: customer.id, authAccountId: customer.id, isAdmin: false }, numbers[0], {});
    } finally {
      closeCore(core);
    }
    const { result: exported, queries } = await logged(() => runTel(['export', '--db', db]));
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`- number: "${numbers[0]}"`);
    const poolReads = [...new Set(queries.map((q) => q.sql).filter((sql) => /pool_id/.test(sql)))];
    expect(poolReads.length).toBeGreaterThan(0);
    const reader = openCore(db);
    try {
      for (const sql of poolReads) expect(wholeTableSteps(planOf(reader.db, sql)), sql).toEqual([]);
    } finally {
      closeCore(reader);
    }
  });

  it('a plan that takes longer than a batch commits in batches; one that fails part way keeps the batches before it; a small one is one transaction', async () => {
    const core = openCore(join(tmp.dir, 'batches.db'));
    try {
      const planOf = async (text: string) => planLab(core, readLab(await parseLabText(text, 'lab.yaml')), { prune: false });
      // a small plan is one transaction however long it takes
      const created = applyPlan(core, await planOf(labText(5)), { batchMs: 0 });
      expect(created).toMatchObject({ transactions: 1, created: 26 });
      // with batches of one change, every change its own transaction
      const moved = await planOf(labText(5).replaceAll('/crm/', '/crm3/'));
      expect(applyPlan(core, moved, { batchMs: 0, minBatch: 1 })).toMatchObject({ transactions: 5, changed: 5 });
      // a change that meets a document changed since it was planned is refused with its batch only
      const next = await planOf(labText(5).replaceAll('/crm/', '/crm2/'));
      expect(next.changes.map((c) => c.action)).toEqual(Array(5).fill('change'));
      core.db.prepare("UPDATE webhooks SET rev = '99-x' WHERE json_extract(doc, '$.name') = 'CRM 3'").run();
      let failure: unknown;
      try {
        applyPlan(core, next, { batchMs: 0, minBatch: 1 });
      } catch (err) {
        failure = err;
      }
      expect(failure).toBeInstanceOf(ApplyFailed);
      expect((failure as ApplyFailed).applied).toBe(3);
      expect((failure as Error).message).toMatch(/^The database changed while the plan was made \(~ change webhook Lab\/Customer 3\/CRM 3: uri\): the first 3 changes were applied; run tel apply again\.$/);
      const uris = core.db.prepare("SELECT json_extract(doc, '$.uri') AS uri FROM webhooks ORDER BY json_extract(doc, '$.name')").all() as { uri: string }[];
      expect(uris.map((u) => u.uri.includes('/crm2/'))).toEqual([true, true, true, false, false]);
    } finally {
      closeCore(core);
    }
  });
});

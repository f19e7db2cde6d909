#!/usr/bin/env node
// Runs the test suite (vitest run, extra arguments passed through) and ends with one
// plain line that CI reads: `N passed, N failed` (`, N skipped` when there are any).
// The exit code is vitest's.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`the tests need Node 24 and this is Node ${process.versions.node}: run them with \`npm test\`.`);
  process.exit(2);
}

/** Counts from vitest's JSON report; a file that failed to load counts as one failure. */
export function countResults(report) {
  let failed = report.numFailedTests ?? 0;
  for (const file of report.testResults ?? []) {
    const anyTestFailed = (file.assertionResults ?? []).some((t) => t.status === 'failed');
    if (file.status === 'failed' && !anyTestFailed) failed += 1;
  }
  return {
    passed: report.numPassedTests ?? 0,
    failed,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

/** The files that took longest, slowest first (the suite has a time budget: this shows where it goes). */
export function slowestFiles(report, root, count = 8) {
  return (report.testResults ?? [])
    .map((f) => ({ file: f.name.startsWith(root) ? f.name.slice(root.length + 1) : f.name, ms: (f.endTime ?? 0) - (f.startTime ?? 0) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
}

/** The summary line CI reads. */
export function summaryLine({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'tel-vitest-'));
  const reportPath = join(work, 'report.json');
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const args = [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportPath}`, ...process.argv.slice(2)];

  // The tests run on this same Node (the project's Node 24 under npm scripts).
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((done) => child.on('close', (c, signal) => done(c ?? (signal ? 1 : 0))));

  let counts;
  try {
    const report = JSON.parse(readFileSync(reportPath, 'utf8'));
    counts = countResults(report);
    const slow = slowestFiles(report, root);
    if (slow.length > 1) {
      console.log('slowest files:');
      for (const { file, ms } of slow) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
    }
  } catch {
    counts = null;
  }
  rmSync(work, { recursive: true, force: true });

  if (!counts) {
    console.log('vitest ended without a report (see its output above).');
    counts = { passed: 0, failed: code === 0 ? 0 : 1, skipped: 0 };
  } else if (code !== 0 && counts.failed === 0) {
    // e.g. an unhandled error outside any test: still a failed run.
    console.log('vitest reported errors outside the tests (see its output above).');
    counts.failed = 1;
  }
  console.log(summaryLine(counts));
  process.exit(code);
}

await main();

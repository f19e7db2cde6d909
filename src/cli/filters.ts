import type { Command } from 'commander';
import { docFilterOf, type DocFilter } from '../util/doc-filter.js';
import { ScanBudget, type RowFilter } from '../store/pages.js';
import { CliError } from './io.js';

// `--filter KEY=VALUE` of the listings that list documents: Kazoo's `filter_KEY=VALUE`, tested
// by the same code as the API's listings (util/doc-filter.ts) on the same documents.

/** Adds `--filter KEY=VALUE` (repeatable) to a listing command. */
export function withFilterOption(cmd: Command): Command {
  return cmd.option(
    '--filter <KEY=VALUE>',
    "only what has VALUE at KEY, a dotted path (the API's filter_KEY=VALUE: a JSON list as VALUE means any of its strings); repeatable, all must hold",
    (value: string, previous: string[] = []) => [...previous, value],
  );
}

/** The filter of a command's `--filter` values (undefined without any); one without `=` is a usage error. */
function filterOfOption(values: string[] | undefined): DocFilter | undefined {
  if (!values?.length) return undefined;
  const pairs = values.map((kv): [string, string] => {
    const at = kv.indexOf('=');
    if (at <= 0) throw new CliError(`--filter takes KEY=VALUE, not ${kv}.`, 2);
    return [`filter_${kv.slice(0, at)}`, kv.slice(at + 1)];
  });
  return docFilterOf(pairs);
}

/** The items whose `whole` document passes a command's `--filter` values (all of them without any). */
export function keepFiltered<T>(values: string[] | undefined, items: T[], whole: (item: T) => Record<string, unknown>): T[] {
  const f = filterOfOption(values);
  return f ? items.filter((item) => f.test(whole(item))) : items;
}

/** The same filter as a listing's reads apply it, over each item's `whole` document. */
export function rowFilterOfOption<T>(values: string[] | undefined, whole: (item: T) => Record<string, unknown>): RowFilter<T> | undefined {
  const f = filterOfOption(values);
  return f && { keeps: (item) => f.test(whole(item)), budget: new ScanBudget() };
}

import type { Command } from 'commander';
import { createCollection, updateCollection } from '../modules/resources/collections.js';
import {
  createResource,
  deleteResource,
  getResource,
  listResources,
  resourceFilterDoc,
  resourceJson,
  resourceSummary,
  updateResource,
  type Scope,
} from '../modules/resources/service.js';
import { keepFiltered, withFilterOption } from './filters.js';
import type { Core } from '../core-type.js';
import { CliError, emit, fieldsToChange, jsonObjectArg, parseJsonText, readSource, table, wholeNumber, withGlobals, type CliIo } from './io.js';
import { existingAccount, withCore } from './database.js';

const collect = (value: string, previous: string[]) => [...previous, value];

function scopeOf(core: Core, account: string | undefined): Scope {
  return account ? { accountId: existingAccount(core, account) } : {};
}

const ACCOUNT_OPTION = ['--account <account>', "an account's resources (default: the global resources)"] as const;

/** `tel resources …`: carriers, global or per account, offline on the database file. */
export function defineResources(resources: Command, io: CliIo): void {
  resources.addHelpText(
    'after',
    `
Without --account the command works on the global resources (the API needs a super-duper
admin token for those; the CLI works on the database file directly).

Examples:
  $ tel resources list
  $ tel resources create "Carrier A" --gateway sip.carrier-a.net --rule '^\\+1(\\d{10})$'
  $ tel resources create "Office trunk" --account <id> --data @trunk.json
  $ tel resources import carriers.json --account <id>
  $ tel resources delete <resource_id> --account <id>`,
  );

  withFilterOption(withGlobals(resources.command('list')))
    .description('resources with name, enabled, weight_cost and gateway count')
    .option(...ACCOUNT_OPTION)
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel resources list                          the global resources\n  $ tel resources list --account <id> --json\n  $ tel resources list --filter enabled=true --filter gateways.1.server=sip.carrier-a.net',
    )
    .action(async (opts: { account?: string; filter?: string[] }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const docs = keepFiltered(opts.filter, listResources(core, scopeOf(core, opts.account)), (d) => resourceFilterDoc(d, true));
        const rows = docs.map((d) => ({ ...resourceSummary(d), gateways: Array.isArray(d.doc.gateways) ? d.doc.gateways.length : 0 }));
        emit(io, g, rows, () => table(rows, ['id', 'name', 'enabled', 'weight_cost', 'gateways']));
      }),
    );

  withGlobals(resources.command('show <id>'))
    .description('one resource, as the API answers it')
    .option(...ACCOUNT_OPTION)
    .addHelpText('after', '\nExamples:\n  $ tel resources show <resource_id>\n  $ tel resources show <resource_id> --account <id>')
    .action(async (id: string, opts: { account?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => emit(io, { ...g, json: true }, resourceJson(getResource(core, scopeOf(core, opts.account), id)))),
    );

  withGlobals(resources.command('create <name>'))
    .description('create a resource; defaults are filled in as the API does')
    .option(...ACCOUNT_OPTION)
    .option('--gateway <server>', 'a gateway server (repeatable)', collect, [])
    .option('--rule <regex>', 'a rule the number must match (repeatable)', collect, [])
    .option('--weight-cost <n>', 'order among usable resources, 0..100', wholeNumber)
    .option('--disabled', 'create it disabled')
    .option('--data <json>', 'more fields of the resource as JSON, or @file')
    .addHelpText(
      'after',
      `
Examples:
  $ tel resources create "Carrier A" --gateway sip.carrier-a.net --rule '^\\+1(\\d{10})$'
  $ tel resources create "Carrier B" --gateway 10.0.0.1 --gateway 10.0.0.2 --weight-cost 20 --json
  $ tel resources create "Office trunk" --account <id> --data @trunk.json`,
    )
    .action(
      async (
        name: string,
        opts: { account?: string; gateway: string[]; rule: string[]; weightCost?: number; disabled?: boolean; data?: string },
        cmd: Command,
      ) => {
        const extra = opts.data ? await jsonObjectArg(opts.data, '--data') : {};
        await withCore(cmd, (core, g) => {
          const doc: Record<string, unknown> = { gateways: [], ...extra, name };
          if (opts.gateway.length) doc.gateways = opts.gateway.map((server) => ({ server }));
          if (opts.rule.length) doc.rules = opts.rule;
          if (opts.weightCost !== undefined) doc.weight_cost = opts.weightCost;
          if (opts.disabled) doc.enabled = false;
          const created = createResource(core, scopeOf(core, opts.account), doc);
          emit(io, g, resourceJson(created), () => `Created resource ${name} (${created.id}).`);
        });
      },
    );

  withGlobals(resources.command('update <id>'))
    .description("change a resource's name, gateways, rules or other fields (the fields given; the others are kept)")
    .option(...ACCOUNT_OPTION)
    .option('--name <name>', 'its new name')
    .option('--gateway <server>', 'a gateway server (repeatable): the list replaces its gateways', collect, [])
    .option('--rule <regex>', 'a rule the number must match (repeatable): the list replaces its rules', collect, [])
    .option('--weight-cost <n>', 'order among usable resources, 0..100', wholeNumber)
    .option('--data <json>', 'fields of the resource as JSON, or @file, merged into it')
    .addHelpText(
      'after',
      `
Examples:
  $ tel resources update <resource_id> --name "Carrier A (backup)" --weight-cost 80
  $ tel resources update <resource_id> --account <id> --gateway sip1.carrier.example --gateway sip2.carrier.example --json
  $ tel resources update <resource_id> --data '{"enabled":false}'`,
    )
    .action(async (id: string, opts: { account?: string; name?: string; gateway: string[]; rule: string[]; weightCost?: number; data?: string }, cmd: Command) => {
      const fields = await fieldsToChange(opts.data, {
        name: opts.name,
        gateways: opts.gateway.length ? opts.gateway.map((server) => ({ server })) : undefined,
        rules: opts.rule.length ? opts.rule : undefined,
        weight_cost: opts.weightCost,
      });
      await withCore(cmd, (core, g) => {
        const d = updateResource(core, scopeOf(core, opts.account), id, fields, 'merge');
        emit(io, g, resourceJson(d), () => `Updated resource ${String(d.doc.name)} (${d.id}): ${Object.keys(fields).join(', ')}.`);
      });
    });

  withGlobals(resources.command('delete <id>'))
    .description('delete a resource')
    .option(...ACCOUNT_OPTION)
    .addHelpText('after', '\nExamples:\n  $ tel resources delete <resource_id>\n  $ tel resources delete <resource_id> --account <id>')
    .action(async (id: string, opts: { account?: string }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const d = deleteResource(core, scopeOf(core, opts.account), id);
        emit(io, g, { ...resourceJson(d), _read_only: { deleted: true } }, () => `Deleted resource ${String(d.doc.name)} (${d.id}).`);
      }),
    );

  withGlobals(resources.command('import <file>'))
    .description('create many resources from a JSON array (a collection); --update merges into existing ones by id')
    .option(...ACCOUNT_OPTION)
    .option('--update', 'update existing resources (items carry their id) instead of creating')
    .addHelpText(
      'after',
      `
Examples:
  $ tel resources import carriers.json --account <id>
  $ tel resources import changes.json --update --json
  $ echo '[{"name":"Carrier C","gateways":[{"server":"sip.c.example"}]}]' | tel resources import -

The file (or - for stdin) is a JSON array of resources. Each item is created on its own:
an invalid one is reported and the others are kept. Exit 1 when any item failed.`,
    )
    .action(async (file: string, opts: { account?: string; update?: boolean }, cmd: Command) => {
      const text = await readSource(io, file);
      const items = parseJsonText(text, `${file} is not valid JSON.`, file === '-' ? 'The JSON on stdin' : file);
      await withCore(cmd, (core, g) => {
        const scope = scopeOf(core, opts.account);
        const result = opts.update ? updateCollection(core, scope, items) : createCollection(core, scope, items);
        const ok = Object.keys(result.successes);
        const bad = Object.entries(result.errors);
        emit(io, g, result, () =>
          [
            `${opts.update ? 'Updated' : 'Created'} ${ok.length} resource(s)${ok.length ? `: ${ok.join(', ')}` : ''}.`,
            ...bad.map(([id, e]) => `  ${id}: ${typeof e === 'string' ? e : JSON.stringify(e)}`),
          ].join('\n'),
        );
        if (bad.length) throw new CliError(`${bad.length} item(s) refused.`);
      });
    });
}

import { Option, type Command } from 'commander';
import { addApp, appJson, listApps, removeApp } from '../modules/apps-store/service.js';
import { keepFiltered, withFilterOption } from './filters.js';
import { ALLOWED_USERS, DEFAULT_LANGUAGE } from '../modules/apps-store/schema.js';
import { readFile } from 'node:fs/promises';
import { IMAGE_TYPES, sniffedType, type StoredFile } from '../modules/documents/files.js';
import { CliError, emit, jsonObjectArg, table, withGlobals, type CliIo } from './io.js';
import { withCore } from './database.js';

interface AddOptions {
  label: string;
  description?: string;
  apiUrl?: string;
  sourceUrl?: string;
  allowedUsers?: string;
  masqueradable: boolean;
  tags?: string;
  data?: string;
  icon?: string;
  screenshot: string[];
}

/** An image file given on the command line: PNG, JPEG or GIF, told by its first bytes. */
async function imageFile(path: string, option: string): Promise<StoredFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    throw new CliError(`Cannot read ${path} (${option}).`, 2);
  }
  const contentType = sniffedType(bytes);
  if (!contentType || !IMAGE_TYPES.includes(contentType)) throw new CliError(`${path} (${option}) is not a PNG, JPEG or GIF image.`, 2);
  return { contentType, bytes };
}

/** The app document `tel apps add` stores: `--data` with the options over it. */
async function appDoc(name: string, opts: AddOptions): Promise<Record<string, unknown>> {
  const base = opts.data ? await jsonObjectArg(opts.data, '--data') : {};
  const doc: Record<string, unknown> = { ...base, name };
  const i18n = { ...((doc.i18n as Record<string, unknown>) ?? {}) };
  const text: Record<string, unknown> = { ...((i18n[DEFAULT_LANGUAGE] as Record<string, unknown>) ?? {}), label: opts.label };
  if (opts.description !== undefined) text.description = opts.description;
  i18n[DEFAULT_LANGUAGE] = text;
  doc.i18n = i18n;
  if (opts.apiUrl !== undefined) doc.api_url = opts.apiUrl;
  if (opts.sourceUrl !== undefined) doc.source_url = opts.sourceUrl;
  if (opts.allowedUsers !== undefined) doc.allowed_users = opts.allowedUsers;
  if (!opts.masqueradable) doc.masqueradable = false;
  if (opts.tags !== undefined) doc.tags = opts.tags.split(',').map((t) => t.trim()).filter(Boolean);
  return doc;
}

/** An app as the listing shows it: its label, and where its API is (the server itself unless set). */
function appRow(app: ReturnType<typeof appJson>): Record<string, unknown> {
  const i18n = (app.i18n ?? {}) as Record<string, { label?: string }>;
  return { ...app, label: i18n[DEFAULT_LANGUAGE]?.label, api_url: app.api_url ?? '(this server)' };
}

/** `tel apps …`: the catalogue of apps Kazoo's web UI lists (metadata only; tel serves no UI code). */
export function defineApps(apps: Command, io: CliIo): void {
  apps.addHelpText(
    'after',
    `\nExamples:\n  $ tel apps list\n  $ tel apps add callflows --label "Callflows" --description "Route calls" --tags reseller,developer\n  $ tel apps remove callflows\n\nAn app is metadata only: the UI loads its code from its own files (or source_url). Every\ndatabase offers the webhooks app; accounts install apps and choose who may use them through\nPUT/POST/DELETE /v2/accounts/{id}/apps_store/{app_id}.`,
  );

  withFilterOption(withGlobals(apps.command('list')))
    .description('the catalogue: id, name, label, who may use each app by default, its API')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel apps list\n  $ tel apps list --json\n  $ tel apps list --filter tags=reseller\n\nAPI_URL "(this server)": the URL the client reached the server by, ending in /v2/.',
    )
    .action(async (opts: { filter?: string[] }, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const all = keepFiltered(opts.filter, listApps(core).map(appJson), (app) => app);
        emit(io, g, all, () => table(all.map(appRow), ['id', 'name', 'label', 'allowed_users', 'masqueradable', 'api_url']));
      }),
    );

  withGlobals(apps.command('add <name>'))
    .description('add an app to the catalogue (every account may use it unless it installs it otherwise)')
    .requiredOption('--label <text>', `its name in the UI (${DEFAULT_LANGUAGE})`)
    .option('--description <text>', `what it does (${DEFAULT_LANGUAGE})`)
    .option('--api-url <url>', "the API it talks to (default: this server's own /v2/ URL as the client reached it)")
    .option('--source-url <url>', 'where the UI loads its code from, when not from its own apps folder')
    .addOption(new Option('--allowed-users <who>', 'who of an account may use it by default').choices([...ALLOWED_USERS]))
    .option('--no-masqueradable', 'not usable while acting as a sub-account')
    .option('--tags <list>', 'comma-separated tags (reseller, developer, …)')
    .option('--data <json|@file>', 'the whole app document (i18n in more languages, phase, extends, …); options override it')
    .option('--icon <file>', "the app's icon (PNG, JPEG or GIF), which Monster UI's launcher shows")
    .option('--screenshot <file>', 'a screenshot for the app store (repeat for more, in order)', (v: string, all: string[]) => [...all, v], [])
    .addHelpText(
      'after',
      '\nExamples:\n  $ tel apps add callflows --label "Callflows" --icon callflows.png\n  $ tel apps add crm --label "CRM" --api-url https://api.example.com/v2/ --source-url https://ui.example.com/apps/crm\n  $ tel apps add numbers --label "Numbers" --data @numbers-app.json --screenshot one.png --screenshot two.png --json\n\nThe icon and screenshots are served at /v2/accounts/{id}/apps_store/{app_id}/icon and …/screenshot/{n}.',
    )
    .action(async (name: string, opts: AddOptions, cmd: Command) => {
      const doc = await appDoc(name, opts);
      const icon = opts.icon ? await imageFile(opts.icon, '--icon') : undefined;
      const screenshots = await Promise.all(opts.screenshot.map((f) => imageFile(f, '--screenshot')));
      await withCore(cmd, (core, g) => {
        const app = appJson(addApp(core, doc, { icon, screenshots }));
        emit(io, g, app, () => `Added ${app.name} (${app.id}) to the catalogue.`);
      });
    });

  withGlobals(apps.command('remove <app>'))
    .description('remove an app (by id or name) from the catalogue and from every account that installed it')
    .addHelpText('after', '\nExamples:\n  $ tel apps remove callflows\n  $ tel apps remove <app_id>')
    .action(async (idOrName: string, _opts: unknown, cmd: Command) =>
      withCore(cmd, (core, g) => {
        const app = appJson(removeApp(core, idOrName));
        emit(io, g, app, () => `Removed ${app.name} (${app.id}) from the catalogue.`);
      }),
    );
}

/**
 * Why tel does not serve a Kazoo module, or the rest of one it serves in part: one line each, by
 * the module's name in Kazoo's OpenAPI paths. A module tel serves whole has none (a test checks
 * both ways), so the page says why whenever something is missing.
 */
export const KAZOO_NOTES: Readonly<Record<string, string>> = {
  acls: "the switch's access lists (ecallmgr's): tel has no switch (accounts' and devices' `access_lists` are served)",
  agents: "setting an agent's status (login, pause, resume) needs an ACD: tel's queue simulations keep no agent states, so statuses read `unknown`",
  att_handlers_errors: 'the errors of attachment handlers (S3, Dropbox, …): tel keeps attachments in its own file',
  auth: "single sign-on (OAuth apps, providers, keys, links): tel logs in with credentials, API keys and addresses",
  bulk: 'changes to many documents of several kinds in one request: not built',
  call_inspector: "SIP traces of calls, from the switch: tel has no switch",
  conferences: 'actions on a running conference and its participants (lock, dial, play, mute, kick): no conference runs in tel',
  devices: "`PUT devices/{id}` (`action: notify`, a SIP NOTIFY sent to the phone) needs a switch",
  functions: "functions Kazoo's `function` callflow action runs: tel runs no callflow",
  ips: "dedicated addresses of the switch's pool assigned to accounts: tel has no switch",
  media: "a media's audio (`raw`), prompts and languages: tel keeps media documents, not their sound",
  migrations: "Kazoo's migrations of its databases: nothing to migrate in tel",
  notifications: "e-mail notification templates (teletype): tel sends no e-mail",
  phone_numbers: "a number's locality and the prefixes of a city, which Kazoo asks a phonebook service (`phonebook_url`): tel has none",
  pivot: "the debug logs of callflows fetched from a web server (Pivot): tel runs no callflow",
  port_requests: 'number porting requests: not built',
  presence: "the reports of presence resets, which Kazoo e-mails with an alert: tel's resets make none",
  queues: "eavesdropping on queue calls and the queues' live statistics need a switch",
  services: "service plans, billing and their reconciliation, through a payment provider: tel bills nothing",
  skels: 'the module Kazoo ships as a template for new ones: nothing to serve',
  sup: "commands to Kazoo's Erlang nodes (`sup`): tel is not Kazoo",
  tasks: "background CSV tasks (imports, exports): tel's bulk numbers are resource jobs",
  transactions: 'payment transactions: tel bills nothing',
  vmboxes: "messages' audio (`raw`, one message's or several in a zip): tel's simulated voicemail records no sound",
  websockets: "events over a websocket (blackhole): tel sends events as webhooks",
};

import type { Command } from 'commander';
import { CliError, withGlobals, type CliIo } from './io.js';
import { runSimulation, type SimulateCommand } from './simulate-run.js';

interface RegistrationOptions {
  account: string;
  device: string;
  unregister?: boolean;
  expire?: boolean;
  expires?: string;
  userAgent?: string;
  ip?: string;
  port?: string;
}

/** `tel simulate registration`: a device's phone registers, unregisters, or lets its registration lapse. */
export const simulateRegistrationCommand: SimulateCommand = (simulate: Command, io: CliIo) => {
  withGlobals(simulate.command('registration'))
    .description("a device's phone registers (or unregisters, or its registration lapses): registrations, devices/status and the register/deregister notifications")
    .requiredOption('--account <account>', 'account of the device')
    .requiredOption('--device <id>', 'the device (it needs a SIP username)')
    .option('--unregister', 'the phone unregisters (a REGISTER with Expires: 0)')
    .option('--expire', 'the registration lapses now, as if the phone stopped refreshing it')
    .option('--expires <seconds>', "how long it stays registered without a refresh (default: the device's sip.expire_seconds, else 300)")
    .option('--user-agent <text>', 'what the phone calls itself')
    .option('--ip <address>', "the phone's address (default 192.0.2.10)")
    .option('--port <port>', "the phone's port (default 5060)")
    .addHelpText(
      'after',
      `
Examples:
  $ tel simulate registration --account <id> --device <device_id>
  $ tel simulate registration --account <id> --device <device_id> --expires 60 --user-agent "Yealink SIP-T46U" --json
  $ tel simulate registration --account <id> --device <device_id> --unregister

The first registration of a device notifies \`register\` to notifications webhooks; unregistering, or a
registration that lapses (nobody refreshes it within --expires seconds), notifies \`deregister\`
unless the device sets suppress_unregister_notifications. GET /v2/accounts/{id}/registrations and
GET /v2/accounts/{id}/devices/status show the live ones.`,
    )
    .action(async (opts: RegistrationOptions, cmd: Command) => {
      if (opts.unregister && opts.expire) throw new CliError('--unregister and --expire are two ways to end it: give one.', 2);
      const expires = opts.expires === undefined ? undefined : Number(opts.expires);
      if (expires !== undefined && !(Number.isInteger(expires) && expires > 0)) throw new CliError(`--expires must be a whole number of seconds, not ${opts.expires}.`, 2);
      await runSimulation(cmd, io, opts.account, {
        kind: 'registration',
        device_id: opts.device,
        action: opts.unregister ? 'unregister' : opts.expire ? 'expire' : 'register',
        ...(expires !== undefined ? { expires } : {}),
        ...(opts.userAgent ? { user_agent: opts.userAgent } : {}),
        ...(opts.ip ? { network_ip: opts.ip } : {}),
        ...(opts.port ? { network_port: opts.port } : {}),
      });
    });
};

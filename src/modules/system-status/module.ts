import type { Core } from '../../core-type.js';
import type { RouteDef } from '../../http/router.js';
import { NODE_NAME } from '../../util/node-name.js';
import { about } from '../about/module.js';
import { countChannels } from '../channels/store.js';
import { countRegistrations } from '../registrations/store.js';
import type { TelModule } from '../types.js';

/** The zone tel reports its one node in (Kazoo's `local` zone when none is configured). */
const ZONE = 'local';

/** Bytes as Kazoo's `kz_network_utils:pretty_print_bytes` writes them (`67.46MB`). */
export function prettyBytes(n: number): string {
  for (const [unit, size] of [['GB', 2 ** 30], ['MB', 2 ** 20], ['KB', 2 ** 10]] as const) if (n >= size) return `${(n / size).toFixed(2)}${unit}`;
  return `${n}B`;
}

/**
 * Kazoo's cluster status (`kz_nodes:status_to_json`): nodes by zone, then by type, then by name.
 * tel is one node: this process, answering the crossbar and webhooks apps, with the registrations
 * and channels its simulations keep; no conference runs in tel.
 */
export function systemStatus(core: Core): Record<string, unknown> {
  const a = about();
  const [type] = NODE_NAME.split('@');
  const node = {
    node: NODE_NAME,
    version: a.version,
    used_memory: prettyBytes(a.used_memory as number),
    processes: a.processes,
    ports: a.ports,
    zone: ZONE,
    kapps: ['crossbar', 'webhooks'],
    channels: countChannels(core),
    conferences: 0,
    registrations: countRegistrations(core, undefined),
  };
  return { [ZONE]: { [type]: { [NODE_NAME]: node } } };
}

const NODE = {
  type: 'object',
  properties: {
    node: { type: 'string' },
    version: { type: 'string' },
    used_memory: { type: 'string', description: 'as 67.46MB' },
    processes: { type: 'integer' },
    ports: { type: 'integer' },
    zone: { type: 'string' },
    kapps: { type: 'array', items: { type: 'string' } },
    channels: { type: 'integer' },
    conferences: { type: 'integer' },
    registrations: { type: 'integer' },
  },
};

const STATUS = {
  type: 'object',
  description: 'nodes by zone, then by node type, then by node name',
  additionalProperties: { type: 'object', additionalProperties: { type: 'object', additionalProperties: NODE } },
};

const routes: RouteDef[] = [{ method: 'GET', path: 'system_status', superduper: true, response: STATUS, handler: (_ctx, core) => ({ data: systemStatus(core) }) }];

/** `/v2/system_status`: Kazoo's `cb_system_status` (super-duper admins only). */
export const systemStatusModule: TelModule = { name: 'system_status', endpoints: ['system_status'], routes };

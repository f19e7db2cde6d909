import type { RouteDef } from '../../http/router.js';
import type { TelModule } from '../types.js';
import { getAccount } from '../accounts/service.js';
import { NODE_NAME } from '../../util/node-name.js';
import { VERSION } from '../../version.js';

/** Handles that are network sockets or pipes: what Kazoo counts as an Erlang VM's ports. */
const PORT_RESOURCES = new Set(['TCPServerWrap', 'TCPSocketWrap', 'PipeWrap', 'PipeServerWrap', 'UDPWrap', 'TTYWrap']);

/**
 * What Kazoo's `about` answers, from this process: `version`, `used_memory` (bytes), `processes`
 * (the event loop's active handles and requests, the nearest thing to Erlang processes) and
 * `ports` (its sockets and pipes). There is no Erlang here, so no `erlang_version`; tel adds
 * `node_version`, `node` and `uptime_s`.
 */
export function about(): Record<string, unknown> {
  const resources = process.getActiveResourcesInfo();
  return {
    version: VERSION,
    used_memory: process.memoryUsage.rss(),
    processes: resources.length,
    ports: resources.filter((r) => PORT_RESOURCES.has(r)).length,
    node_version: process.versions.node,
    node: NODE_NAME,
    uptime_s: Math.floor(process.uptime()),
  };
}

/** What `about` answers, as the OpenAPI document shows it. */
const ABOUT = {
  type: 'object',
  required: ['version', 'used_memory', 'processes', 'ports'],
  properties: {
    version: { type: 'string' },
    used_memory: { type: 'integer', description: 'bytes' },
    processes: { type: 'integer' },
    ports: { type: 'integer' },
    node_version: { type: 'string' },
    node: { type: 'string' },
    uptime_s: { type: 'integer' },
  },
};

const routes: RouteDef[] = [
  // as Kazoo: without an account, a super-duper admin's; under one, anyone's who may act on it
  { method: 'GET', path: 'about', superduper: true, response: ABOUT, handler: () => ({ data: about() }) },
  {
    method: 'GET',
    path: 'accounts/:account_id/about',
    response: ABOUT,
    handler: (ctx, core) => {
      getAccount(core, ctx.params.account_id);
      return { data: about() };
    },
  },
];

/** `GET /v2/about`: the server's version and vital signs. */
export const aboutModule: TelModule = { name: 'about', endpoints: ['about'], routes };

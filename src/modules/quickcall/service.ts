import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { transaction } from '../../store/db.js';
import { newId } from '../../util/ids.js';
import { linearExec, patternRefusal } from '../../util/linear-regex.js';
import { getAccount } from '../accounts/service.js';
import { getDoc, type StoredDoc } from '../documents/store.js';
import { devicesOwnedBy } from '../documents/owned.js';
import { simulateCall } from '../simulations/call.js';
import { getUser } from '../users/service.js';

/** Characters Kazoo's quickcall takes out of the number unless `number_filter=false`. */
const NUMBER_FILLER = /[ ,.\-()]/g;

/** What a quickcall is asked: whom it rings first, the number it then calls, and the options of its query. */
export interface QuickcallRequest {
  endpoint: { type: 'device' | 'user'; id: string };
  number: string;
  /** Kazoo's `number_filter`: `true` takes the filler out, `false` keeps the number as written, a pattern keeps its first group */
  numberFilter: string;
  autoAnswer: boolean;
  timeoutSeconds: number;
  cidName?: string;
  cidNumber?: string;
  /** `POST` waits for the call to start, and answers it with the request */
  wait: boolean;
}

/**
 * The number a quickcall calls, as Kazoo's `number_filter` makes it: `true` takes the filler out,
 * `false` keeps it, anything else is a pattern whose first group is the number (the number as
 * written when it does not match). A tenant's pattern runs on the linear-time engine; one RE2 does
 * not take is a 400 on `number_filter`.
 */
export function filteredNumber(number: string, filter: string): string {
  if (filter === 'true') return number.replace(NUMBER_FILLER, '');
  if (filter === 'false') return number;
  const refused = patternRefusal(filter);
  if (refused) throw errors.invalidField('number_filter', 'regex', `Not a pattern tel runs: ${refused}`, { value: filter });
  return linearExec(filter, number)?.[1] ?? number;
}

/** The devices a quickcall rings: the device, or the user's; disabled ones are not rung. */
function endpointsOf(core: Core, accountId: string, endpoint: QuickcallRequest['endpoint']): StoredDoc[] {
  let devices: StoredDoc[];
  if (endpoint.type === 'device') {
    devices = [getDoc(core, 'device', accountId, endpoint.id)];
  } else {
    getUser(core, accountId, endpoint.id);
    devices = devicesOwnedBy(core, accountId, endpoint.id);
  }
  return devices.filter((d) => d.doc.enabled !== false);
}

/**
 * A quickcall, as Kazoo's module originates it: the endpoints ring (auto-answering when there is
 * one), and once one answers the call goes on to the number. The simulated switch answers at once:
 * the call from the first endpoint is simulated whole (its channel events, its CDRs). Answers the
 * originate request Kazoo sends, its keys normalised and its AMQP headers (`msg_id`, …) removed
 * (`kz_api:remove_defaults/1`), with the call's id when `wait`. No endpoint
 * to ring is Kazoo's 500.
 */
export function quickcall(core: Core, accountId: string, r: QuickcallRequest): Record<string, unknown> {
  const number = filteredNumber(r.number, r.numberFilter);
  return transaction(core.db, () => {
    const devices = endpointsOf(core, accountId, r.endpoint);
    if (devices.length === 0) throw errors.unspecifiedFault('no endpoints to ring');
    const realm = getAccount(core, accountId).realm;
    const endpoints = devices.map((d) => {
      const sip = (d.doc.sip ?? {}) as Record<string, unknown>;
      const ep: Record<string, unknown> = { invite_format: 'username', to_user: sip.username, to_realm: realm, endpoint_id: d.id, outbound_call_id: `${newId()}${newId().slice(0, 4)}-quickcall` };
      if (devices.length === 1) ep.custom_channel_vars = { auto_answer: r.autoAnswer };
      return ep;
    });
    const request: Record<string, unknown> = {
      application_name: 'transfer',
      application_data: { route: number },
      continue_on_fail: false,
      custom_application_vars: {},
      custom_channel_vars: {
        account_id: accountId,
        inherit_codec: 'false',
        authorizing_type: r.endpoint.type,
        authorizing_id: r.endpoint.id,
        retain_cid: r.cidNumber === undefined ? 'false' : 'true',
      },
      dial_endpoint_method: 'simultaneous',
      endpoints,
      export_custom_channel_vars: ['Account-ID', 'Authorizing-ID', 'Authorizing-Type', 'Outbound-Callee-ID-Name', 'Outbound-Callee-ID-Number', 'Retain-CID'],
      ignore_early_media: true,
      media: 'process',
      outbound_callee_id_name: r.cidName ?? number,
      outbound_callee_id_number: r.cidNumber ?? number,
      outbound_caller_id_name: 'Device QuickCall',
      outbound_caller_id_number: number,
      timeout: r.timeoutSeconds,
    };
    const [first] = simulateCall(core, accountId, {
      kind: 'call',
      direction: 'outbound',
      call_id: endpoints[0].outbound_call_id,
      device_id: devices[0].id,
      caller_id_name: 'Device QuickCall',
      caller_id_number: number,
      callee_id_number: number,
      callee_id_name: r.cidName ?? number,
    });
    return r.wait ? { ...request, call_id: first.call_id } : request;
  });
}

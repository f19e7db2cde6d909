import { Resolver } from 'node:dns/promises';
import type { Core } from '../../core-type.js';
import { errors } from '../../errors.js';
import { DOMAIN, findWhitelabel } from './service.js';
import { validateDomains } from './domains-schema.js';
import type { ConfigCategory } from '../config/categories.js';

/** Where the system keeps them: the `whitelabel` category's `domains` (Kazoo's). */
export const WHITELABEL_CATEGORY = 'whitelabel';

const host = (mapping: string[], name: string, zone?: string) => ({ mapping, name, ...(zone ? { zone } : {}) });

/** The records a whitelabelled domain needs until a super-duper admin sets them: Kazoo's default plan. */
export const DEFAULT_DOMAINS = {
  A: {
    'us-central.{{domain}}': host(['127.0.0.1'], 'Secondary Proxy', 'us-central'),
    'us-east.{{domain}}': host(['127.0.0.1'], 'Primary Proxy', 'us-east'),
    'us-west.{{domain}}': host(['127.0.0.1'], 'Tertiary Proxy', 'us-west'),
  },
  CNAME: {
    'api.{{domain}}': host(['api.yourcompany.net'], 'API'),
    'portal.{{domain}}': host(['ui.yourcompany.net'], 'Web GUI'),
  },
  MX: {},
  NAPTR: {
    'proxy-central.{{domain}}': host(['10 100 "S" "SIP+D2U" "" _sip._udp.proxy-central.{{domain}}'], 'Central NAPTR'),
    'proxy-east.{{domain}}': host(['10 100 "S" "SIP+D2U" "" _sip._udp.proxy-east.{{domain}}'], 'East NAPTR'),
    'proxy-west.{{domain}}': host(['10 100 "S" "SIP+D2U" "" _sip._udp.proxy-west.{{domain}}'], 'West NAPTR'),
  },
  SRV: {
    '_sip._udp.proxy-east.{{domain}}': host(
      ['10 10 7000 us-east.{{domain}}', '15 15 7000 us-central.{{domain}}', '20 20 7000 us-west.{{domain}}'],
      'East SRV',
    ),
  },
  TXT: {},
};

type Domains = Record<string, Record<string, { mapping: string[]; name: string; zone?: string }>>;

/** `whitelabel`: the system's plan of the DNS records a whitelabelled domain needs. */
export const WHITELABEL_CONFIG: ConfigCategory = {
  name: WHITELABEL_CATEGORY,
  description: 'Whitelabelled domains: the DNS records each needs, as `GET /v2/accounts/{id}/whitelabel/domains` shows them.',
  keys: {
    domains: {
      type: 'object',
      default: DEFAULT_DOMAINS,
      description:
        'By record type (`A`, `CNAME`, `MX`, `NAPTR`, `SRV`, `TXT`, `AAAA`), host templates holding `{{domain}}` and what each must point to (`mapping`, `name`, `zone`); set with `POST /v2/whitelabel/domains` (a super-duper admin), which checks it.',
    },
  },
};

/** The system's domains plan (set, else the default). */
export function systemDomains(core: Core): Domains {
  return core.config.value(WHITELABEL_CATEGORY, 'domains', DEFAULT_DOMAINS) as Domains;
}

/** `POST /v2/whitelabel/domains`: replaces the system's domains plan (a super-duper admin's). */
export function setSystemDomains(core: Core, input: Record<string, unknown>): Domains {
  const { id: _id, _read_only: _ro, ui_metadata: _ui, ...doc } = input;
  const domains = validateDomains(doc) as Domains;
  core.config.setValue(WHITELABEL_CATEGORY, 'domains', domains);
  return domains;
}

/**
 * The domain a request means: the one it names (`?domain=` or `data.domain`), else the
 * account's whitelabel domain; none is Kazoo's 400 on `domain`.
 */
export function domainFor(core: Core, accountId: string | undefined, asked: unknown): string {
  const domain = typeof asked === 'string' && asked !== '' ? asked : accountId ? findWhitelabel(core, accountId)?.domain : undefined;
  if (!domain) throw errors.invalidField('domain', 'required', 'No domain found to use. Supply one on the request or create one via the whitelabel API');
  if (!DOMAIN.test(domain)) throw errors.invalidField('domain', 'pattern', 'Value is not a host name', { value: domain });
  return domain.toLowerCase();
}

/** The system's plan for one domain: `{{domain}}` replaced in every host and mapping. */
export function domainsOf(core: Core, domain: string): Domains {
  const out: Domains = {};
  for (const [type, hosts] of Object.entries(systemDomains(core))) {
    out[type] = {};
    for (const [h, config] of Object.entries(hosts)) {
      out[type][h.replaceAll('{{domain}}', domain)] = { ...config, mapping: config.mapping.map((m) => m.replaceAll('{{domain}}', domain)) };
    }
  }
  return out;
}

/** How long one DNS question may take: the test answers within about this, whatever the resolver does. */
const LOOKUP_TIMEOUT_MS = 1500;

/** What DNS answers for a host and record type, as the plan writes mappings; nothing when it does not answer. */
async function lookup(resolver: Resolver, hostName: string, type: string): Promise<string[]> {
  try {
    switch (type) {
      case 'A':
        return await resolver.resolve4(hostName);
      case 'AAAA':
        return await resolver.resolve6(hostName);
      case 'CNAME':
        return await resolver.resolveCname(hostName);
      case 'MX':
        return (await resolver.resolveMx(hostName)).map((r) => `${r.priority} ${r.exchange}`);
      case 'NAPTR':
        return (await resolver.resolveNaptr(hostName)).map((r) => `${r.order} ${r.preference} "${r.flags}" "${r.service}" "${r.regexp}" ${r.replacement}`);
      case 'SRV':
        return (await resolver.resolveSrv(hostName)).map((r) => `${r.priority} ${r.weight} ${r.port} ${r.name}`);
      case 'TXT':
        return (await resolver.resolveTxt(hostName)).map((chunks) => chunks.join(''));
      default:
        return [];
    }
  } catch {
    return [];
  }
}

/**
 * `POST …/whitelabel/domains`: asks DNS about every host of the domain's plan, all at once, and
 * answers `{type: {host: {expected, actual, name}}}` for the reseller to compare.
 */
export async function testDomains(core: Core, domain: string): Promise<Record<string, Record<string, unknown>>> {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 1 });
  const plan = domainsOf(core, domain);
  const out: Record<string, Record<string, unknown>> = {};
  const asked: Promise<unknown>[] = [];
  for (const [type, hosts] of Object.entries(plan)) {
    out[type] = {};
    for (const [h, config] of Object.entries(hosts)) {
      // in the plan's order, whatever order DNS answers in
      const entry: Record<string, unknown> = { expected: config.mapping, actual: [], name: config.name };
      out[type][h] = entry;
      asked.push(lookup(resolver, h, type).then((actual) => (entry.actual = actual)));
    }
  }
  await Promise.all(asked);
  return out;
}

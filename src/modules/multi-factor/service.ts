import type { Core } from '../../core-type.js';
import { documentService } from '../documents/crud.js';
import { findDoc, publicDoc, type StoredDoc } from '../documents/store.js';
import { multiFactorProviderSchema } from './schema.js';

/**
 * Multi-factor providers as Kazoo's `cb_multi_factor` keeps them: the system's (a super-duper
 * admin's, Kazoo's `system_auth` database) and an account's own. tel asks no second factor at login
 * (no provider is reachable): the configurations are kept, listed and referred to from `security`.
 */

/** Where the system's providers are kept; never an account id. */
export const SYSTEM_AUTH = 'system_auth';

/** The provider Kazoo ships with the system, disabled, until a super-duper admin changes it. */
const BUILT_IN = { id: 'duo', enabled: false, name: 'System Default Provider', provider_name: 'duo', settings: {} };

/** The provider Kazoo's `kz_mfa_auth:default_provider` names for `security` settings without a configuration of their own. */
export const DEFAULT_PROVIDER_NAME = 'duo';

/** Multi-factor provider configurations (the system's and accounts'). */
export const providers = documentService({
  kind: 'multi_factor_provider',
  endpoint: 'multi_factor',
  summary: ['enabled', 'name', 'provider_name'],
  schema: multiFactorProviderSchema,
});

/** A provider as Kazoo's `providers_by_type` views list it. */
function providerRow(doc: Record<string, unknown>): Record<string, unknown> {
  return { id: doc.id, enabled: doc.enabled, name: doc.name, provider_name: doc.provider_name, provider_type: 'multi_factor' };
}

const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.id).localeCompare(String(b.id));

/** The system's providers, by id: those stored, and the built-in one unless a super-duper admin stored it. */
export function systemProviders(core: Core): Record<string, unknown>[] {
  const stored = providers.list(core, SYSTEM_AUTH).map(publicDoc);
  const all = stored.some((d) => d.id === BUILT_IN.id) ? stored : [...stored, BUILT_IN];
  return all.map(providerRow).sort(byId);
}

/** `GET /v2/accounts/{id}/multi_factor`: the account's providers and the system's. */
export function providersSummary(core: Core, accountId: string): Record<string, unknown> {
  return { configured: providers.list(core, accountId).map(publicDoc).map(providerRow).sort(byId), multi_factor_providers: systemProviders(core) };
}

/** One of the system's providers (the built-in one while it was not stored). */
export function systemProvider(core: Core, id: string): Record<string, unknown> {
  const stored = findDoc(core, providers.kind.kind, SYSTEM_AUTH, id);
  if (stored) return publicDoc(stored);
  return id === BUILT_IN.id ? { ...BUILT_IN } : publicDoc(providers.get(core, SYSTEM_AUTH, id));
}

/** Changes one of the system's providers; the built-in one is stored at its first change. */
export function changeSystemProvider(core: Core, id: string, input: Record<string, unknown>, mode: 'replace' | 'merge'): StoredDoc {
  if (id === BUILT_IN.id && !findDoc(core, providers.kind.kind, SYSTEM_AUTH, id)) {
    const { id: _id, ...builtIn } = BUILT_IN;
    return providers.create(core, SYSTEM_AUTH, mode === 'merge' ? { ...builtIn, ...input } : input, id);
  }
  return providers.update(core, SYSTEM_AUTH, id, input, mode);
}

/**
 * What `security` shows of a login method's multi-factor configuration (`_read_only`): the name and
 * provider of the configuration it names in an account, else the system's default provider.
 */
export function providerMetadata(core: Core, accountId: unknown, configurationId: unknown): Record<string, unknown> {
  const d = typeof accountId === 'string' && typeof configurationId === 'string' ? findDoc(core, providers.kind.kind, accountId, configurationId) : undefined;
  return d ? { name: d.doc.name, provider_name: d.doc.provider_name } : { name: 'Default System Provider', provider_name: DEFAULT_PROVIDER_NAME };
}

import type { Core } from '../../core-type.js';
import { transaction } from '../../store/db.js';
import { defaultSettingsDoc, WEBHOOKS_CATEGORY } from '../../delivery/settings.js';
import { accountConfigId } from '../config/account-config.js';
import { validateAccountConfig } from './schema.js';

/** What an account inherits: the built-in defaults under the system `webhooks` default node. */
function parentSettings(core: Core): Record<string, unknown> {
  return { ...defaultSettingsDoc(), ...(core.config.get(WEBHOOKS_CATEGORY)?.default ?? {}) };
}

/**
 * `GET /v2/accounts/{id}/configs/webhooks`: the settings in force for the account, merged as
 * Kazoo does (account overrides over the system config over the defaults).
 */
export function accountWebhookSettings(core: Core, accountId: string): Record<string, unknown> {
  const own = core.config.forAccount(accountId, WEBHOOKS_CATEGORY) ?? {};
  return { ...parentSettings(core), ...own, id: accountConfigId(WEBHOOKS_CATEGORY) };
}

/**
 * Changes an account's overrides: `replace` (PUT/POST) keeps what the body sets, `merge`
 * (PATCH) adds it to the current overrides. As in Kazoo only the difference from the
 * inherited settings is stored, so a value equal to the system's follows later system changes.
 */
export function changeAccountWebhookSettings(
  core: Core,
  accountId: string,
  input: Record<string, unknown>,
  mode: 'replace' | 'merge',
): Record<string, unknown> {
  const { id: _id, _read_only: _ro, ...body } = input;
  return transaction(core.db, () => {
    const current = core.config.forAccount(accountId, WEBHOOKS_CATEGORY) ?? {};
    const wanted = validateAccountConfig(mode === 'merge' ? { ...current, ...body } : body);
    const parent = parentSettings(core);
    const diff: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(wanted)) if (JSON.stringify(parent[k]) !== JSON.stringify(v)) diff[k] = v;
    core.config.setForAccount(accountId, WEBHOOKS_CATEGORY, diff);
    return accountWebhookSettings(core, accountId);
  });
}

/** Removes an account's overrides; answers the settings it now inherits. */
export function resetAccountWebhookSettings(core: Core, accountId: string): Record<string, unknown> {
  core.config.setForAccount(accountId, WEBHOOKS_CATEGORY, {});
  return accountWebhookSettings(core, accountId);
}

import type { AccountNode, Lab } from '../lab/read.js';
import { normaliseName } from '../modules/accounts/service.js';
import { loginForms } from '../modules/users/credentials.js';
import type { SecretLine } from './format.js';
import type { Generated } from './mapping.js';
import { saltedPlaceholder } from './secrets.js';

/** Candidates hashed at once when a login's placeholder is looked for among a lab's secrets. */
const HASHED_AT_ONCE = 8;

/** A lab's login secrets: its users' passwords by account, its accounts' API keys. */
export interface LabSecrets {
  users: { account: string; realm?: string; username: string; password: string }[];
  apiKeys: string[];
}

/** The login secrets a lab file declares. */
export function labSecrets(lab: Lab): LabSecrets {
  const out: LabSecrets = { users: [], apiKeys: [] };
  const walk = (a: AccountNode) => {
    if (a.apiKey) out.apiKeys.push(a.apiKey);
    const realm = typeof a.doc.realm === 'string' ? a.doc.realm : undefined;
    for (const [kind, items] of a.collections) {
      if (kind.key !== 'users') continue;
      for (const u of items) if (u.password && typeof u.doc.username === 'string') out.users.push({ account: a.name, realm, username: u.doc.username, password: u.password });
    }
    for (const c of a.children ?? []) walk(c);
  };
  walk(lab.account);
  return out;
}

/** The login a request names: its account (by name or realm) and the hash it sends (md5 unless `method: sha`). */
export interface LoginContext {
  accountName?: string;
  realm?: string;
  method?: string;
}

/**
 * What a replay sends for the placeholders of login secrets: the recording holds none of them in
 * clear, so each is found again — from the recording itself (a user whose password the recorded client set
 * logs in with the hash of what the replay sent as that password), or from the lab the user gives
 * (its users' passwords and its accounts' API keys, hashed with the recording's salt until one
 * gives the placeholder). What is found is learned as the placeholder's counterpart.
 */
export class LoginSecrets {
  private readonly hashed = new Map<string, Promise<string>>();

  constructor(
    private readonly salt: Buffer,
    private readonly lab: LabSecrets | undefined,
    private readonly gen: Generated,
  ) {}

  /** Finds the clear value of a placeholder the replay does not know yet; false when nothing gives it. */
  async resolve(line: SecretLine, context: LoginContext): Promise<boolean> {
    if (line.login) {
      const sent = this.gen.get(line.login.password) ?? line.login.password;
      return this.gen.learn(line.secret, loginForms(line.login.username, sent)[line.login.form]);
    }
    if (!this.lab) return false;
    let candidates: string[] = [];
    if (line.kind === 'api_key') candidates = this.lab.apiKeys;
    else if (line.kind === 'credentials') {
      const form = context.method === 'sha' ? 'sha1' : 'md5';
      const name = context.accountName === undefined ? undefined : normaliseName(context.accountName);
      const realm = context.realm?.toLowerCase();
      candidates = this.lab.users
        .filter((u) => (name === undefined || normaliseName(u.account) === name) && (realm === undefined || u.realm?.toLowerCase() === realm))
        .map((u) => loginForms(u.username, u.password)[form]);
    }
    // a few at once: libuv's threads hash them side by side
    for (let i = 0; i < candidates.length; i += HASHED_AT_ONCE) {
      const batch = candidates.slice(i, i + HASHED_AT_ONCE);
      const hashes = await Promise.all(batch.map((clear) => this.placeholderOf(line, clear)));
      const at = hashes.indexOf(line.secret);
      if (at >= 0) return this.gen.learn(line.secret, batch[at]);
    }
    return false;
  }

  private placeholderOf(line: SecretLine, clear: string): Promise<string> {
    const key = `${line.kind}\n${clear}`;
    let p = this.hashed.get(key);
    if (!p) this.hashed.set(key, (p = saltedPlaceholder(line.kind, clear, this.salt)));
    return p;
  }
}

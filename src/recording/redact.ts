import { loginForms } from '../modules/users/credentials.js';
import type { RecordedExchange, RecordedMessage, SecretKind, SecretLine } from './format.js';
import { kindOfName, randomPlaceholder, saltedPlaceholder, SALTED_KINDS } from './secrets.js';

/** Words a secret may hide in (a token in a URL, a key in a sentence): looked up, JWTs redacted on sight. */
const WORDS = /[A-Za-z0-9_~.-]{8,}/g;
/** A string that is one such word whole (an id, a revision): looked up as it is. */
const ONE_WORD = /^[A-Za-z0-9_~.-]+$/;
const JWT = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** The password of a URL's user information (`http://user:pass@host`). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):([^\s/@]+)@/gi;
/** Inside a secret field's object, the parts of a validation error that are the API's words, not the secret. */
const NOT_SECRET_INSIDE = new Set(['message', 'target']);

/** Values of a secret's field that are no secret (tel answers `"auth_token": "null"` to a refused token). */
const NO_SECRET = new Set(['', 'null', 'undefined', 'none', 'false', 'true']);
const isSecret = (value: string) => !NO_SECRET.has(value.toLowerCase());

/** A header whose value holds a secret after a scheme word (`Bearer …`), or in cookies. */
function headerSecrets(name: string, value: string): { start: number; end: number }[] {
  if (name === 'authorization' || name === 'proxy-authorization') {
    const space = value.indexOf(' ');
    return [{ start: space < 0 ? 0 : space + 1, end: value.length }];
  }
  if (name === 'cookie' || name === 'set-cookie') {
    const spans: { start: number; end: number }[] = [];
    const re = name === 'cookie' ? /(?:^|;\s*)[^=;]+=([^;]*)/g : /^[^=;]+=([^;]*)/g;
    for (const m of value.matchAll(re)) {
      const end = m.index + m[0].length;
      if (m[1]) spans.push({ start: end - m[1].length, end });
    }
    return spans;
  }
  return kindOfName(name) ? [{ start: 0, end: value.length }] : [];
}

/** `a=1&b=2` as pairs, each value decoded (a malformed one kept as it is). */
function formPairs(text: string): { raw: string; name: string; value: string | undefined }[] {
  return text.split('&').map((raw) => {
    const eq = raw.indexOf('=');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replaceAll('+', ' '));
      } catch {
        return s;
      }
    };
    return { raw, name: decode(eq < 0 ? raw : raw.slice(0, eq)), value: eq < 0 ? undefined : decode(raw.slice(eq + 1)) };
  });
}

const isForm = (m: RecordedMessage) => String(m.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

/**
 * Takes the secrets out of exchanges before they are written: auth tokens (`X-Auth-Token`,
 * `Authorization`, cookies, `auth_token` in bodies and envelopes, any JWT), API keys, credentials,
 * passwords, signing secrets, pins, tokens in query strings and paths, the password of a URL. A
 * secret is found where it is (a field, header or parameter named for it) and then wherever it
 * shows again, in this exchange and the later ones; each becomes its placeholder (secrets.ts), the
 * same one each time. A new placeholder is announced by a secret line (`takeMinted`).
 */
export class Redactor {
  private readonly bySecret = new Map<string, string>();
  private readonly used = new Set<string>();
  private minted: SecretLine[] = [];

  constructor(private readonly salt: Buffer) {}

  /** The placeholder lines minted since the last call, to be written before the exchange. */
  takeMinted(): SecretLine[] {
    const lines = this.minted;
    this.minted = [];
    return lines;
  }

  /** Redacts an exchange in place. */
  async redact(ex: Pick<RecordedExchange, 'request' | 'response'>): Promise<void> {
    const found = new Map<string, SecretKind>();
    const logins: { username: string; password: string }[] = [];
    const note = (value: string, kind: SecretKind) => void found.set(value, kind);
    const messages = ex.response ? [ex.request, ex.response] : [ex.request];
    this.visitQuery(ex.request.query, note);
    for (const m of messages) {
      this.visitHeaders(m, note);
      if (isForm(m) && m.body_text !== undefined) this.visitQuery(m.body_text, note);
      if (m.body !== undefined) collect(m.body, undefined, found, m === ex.request ? logins : undefined);
    }
    await Promise.all([...found].map(([secret, kind]) => this.mint(kind, secret)));
    for (const { username, password } of logins) {
      const forms = loginForms(username, password);
      const pw = this.placeholder('password', password);
      for (const form of ['md5', 'sha1'] as const) await this.mint('credentials', forms[form], { username, password: pw, form });
    }
    ex.request.path = ex.request.path
      .split('/')
      .map((segment) => this.redactString(segment))
      .join('/');
    ex.request.query = this.rewriteForm(ex.request.query);
    for (const m of messages) {
      this.rewriteHeaders(m);
      if (m.body !== undefined) m.body = this.rewrite(m.body, undefined);
      if (m.body_text !== undefined) m.body_text = isForm(m) ? this.rewriteForm(m.body_text) : this.redactString(m.body_text);
    }
  }

  private visitHeaders(m: RecordedMessage, found: (value: string, kind: SecretKind) => void): void {
    for (const [name, v] of Object.entries(m.headers)) {
      for (const value of Array.isArray(v) ? v : [v]) {
        for (const { start, end } of headerSecrets(name, value)) if (isSecret(value.slice(start, end))) found(value.slice(start, end), kindOfName(name) ?? 'token');
      }
    }
  }

  private visitQuery(text: string, found: (value: string, kind: SecretKind) => void): void {
    if (!text) return;
    for (const p of formPairs(text)) {
      const kind = kindOfName(p.name);
      if (kind && p.value && isSecret(p.value)) found(p.value, kind);
    }
  }

  private async mint(kind: SecretKind, secret: string, login?: SecretLine['login']): Promise<void> {
    if (this.bySecret.has(secret)) return;
    if (!SALTED_KINDS.has(kind)) {
      this.placeholder(kind, secret);
      return;
    }
    const p = await saltedPlaceholder(kind, secret, this.salt);
    if (this.bySecret.has(secret)) return;
    this.bySecret.set(secret, p);
    this.minted.push(login ? { secret: p, kind, login } : { secret: p, kind });
  }

  /** The secret's placeholder, a random one made now when it has none. */
  private placeholder(kind: SecretKind, secret: string): string {
    let p = this.bySecret.get(secret);
    if (p) return p;
    do p = randomPlaceholder(kind, secret);
    while (this.used.has(p));
    this.used.add(p);
    this.bySecret.set(secret, p);
    this.minted.push({ secret: p, kind });
    return p;
  }

  /** A string with every secret it holds (whole, as a word, a JWT, a URL's password) replaced. */
  private redactString(s: string): string {
    const whole = this.bySecret.get(s);
    if (whole !== undefined) return whole;
    if (s.length < 8) return s;
    if (ONE_WORD.test(s)) return JWT.test(s) ? this.placeholder('token', s) : s;
    let out = s.replace(WORDS, (w) => this.bySecret.get(w) ?? (JWT.test(w) ? this.placeholder('token', w) : w));
    if (out.includes('@')) out = out.replace(USERINFO, (_m, head: string, pass: string) => `${head}:${this.placeholder('password', pass)}@`);
    return out;
  }

  private rewriteHeaders(m: RecordedMessage): void {
    for (const [name, v] of Object.entries(m.headers)) {
      const one = (value: string) => {
        const spans = headerSecrets(name, value);
        if (spans.length === 0) return this.redactString(value);
        let out = '';
        let at = 0;
        for (const { start, end } of spans) {
          const secret = value.slice(start, end);
          out += value.slice(at, start) + (isSecret(secret) ? this.placeholder(kindOfName(name) ?? 'token', secret) : secret);
          at = end;
        }
        return out + value.slice(at);
      };
      m.headers[name] = Array.isArray(v) ? v.map(one) : one(v);
    }
  }

  private rewriteForm(text: string): string {
    if (!text) return text;
    return formPairs(text)
      .map((p) => {
        if (p.value === undefined) return this.redactString(p.raw);
        const kind = kindOfName(p.name);
        const value = kind && isSecret(p.value) ? this.placeholder(kind, p.value) : this.redactString(p.value);
        return value === p.value ? p.raw : `${p.raw.slice(0, p.raw.indexOf('='))}=${encodeURIComponent(value)}`;
      })
      .join('&');
  }

  private rewrite(value: unknown, kind: SecretKind | undefined): unknown {
    if (typeof value === 'string') return kind && isSecret(value) ? this.placeholder(kind, value) : this.redactString(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.rewrite(value[i], kind);
      return value;
    }
    if (value !== null && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      for (const k of Object.keys(o)) o[k] = this.rewrite(o[k], kindInside(k, kind));
    }
    return value;
  }
}

/** The kind of secret under field `key` of an object that is itself under a secret of `outer` (if any). */
function kindInside(key: string, outer: SecretKind | undefined): SecretKind | undefined {
  return kindOfName(key) ?? (NOT_SECRET_INSIDE.has(key) ? undefined : outer);
}

/** Collects the secrets a JSON body holds by name, and the logins (username and password) it sets. */
function collect(value: unknown, kind: SecretKind | undefined, found: Map<string, SecretKind>, logins?: { username: string; password: string }[]): void {
  if (typeof value === 'string') {
    if (kind && isSecret(value)) found.set(value, kind);
  } else if (Array.isArray(value)) {
    for (const v of value) collect(v, kind, found, logins);
  } else if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (logins && typeof o.username === 'string' && typeof o.password === 'string' && o.password) logins.push({ username: o.username, password: o.password });
    for (const [k, v] of Object.entries(o)) collect(v, kindInside(k, kind), found, logins);
  }
}

import type { SecretLine } from './format.js';

/** Shapes of the values a server makes up: ids and request ids, API keys, revisions, JWTs, job ids. */
const GENERATED_SHAPE = /^(?:[0-9a-f]{32}|[0-9a-f]{64}|\d+-[0-9a-f]{32}|eyJ[\w-]*\.[\w-]+\.[\w-]+|\d{6}-[0-9a-f]{8,})$/;
const REVISION = /^(\d+)-[0-9a-f]{32}$/;
/** Fields whose value a server makes up, whatever it looks like (a realm of the id's first digits, a paging key). */
const GENERATED_FIELDS = new Set([
  'id',
  '_id',
  'rev',
  '_rev',
  'revision',
  'request_id',
  'auth_token',
  'start_key',
  'next_start_key',
  'realm',
  'api_key',
  'secret',
  'call_id',
  'other_leg_call_id',
  'event_id',
  'msg_id',
  'jti',
  'etag',
  'location',
]);
/** Fields that hold a time when their value is a number of the Unix era. */
const TIME_FIELD = /(?:^|_)(?:created|modified|timestamp|time|date|exp|iat|nbf|expires|expiry|at)$/;
const ISO_TIME = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?$/;
/** Words generated values hide in: a path's segments, a URL's host, a placeholder (`redacted:token:…`). */
const WORDS = /[A-Za-z0-9_~.:-]{8,}/g;
const WORD_SPLIT = /([A-Za-z0-9_~.:-]{8,})/;

type TimeKind = 'gregorian' | 'unix' | 'unix-ms' | 'iso';

/** What kind of time a value is (Gregorian seconds are recognised anywhere, Unix times in time fields). */
function timeKind(field: string, v: unknown): TimeKind | undefined {
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= 60e9 && v < 70e9) return 'gregorian';
    if (!TIME_FIELD.test(field)) return undefined;
    if (v >= 1e9 && v < 1e10) return 'unix';
    if (v >= 1e12 && v < 1e13) return 'unix-ms';
  } else if (typeof v === 'string' && ISO_TIME.test(v)) return 'iso';
  return undefined;
}

/**
 * What the recorded server generated and what the replayed one generated in its place: ids,
 * revisions, tokens, API keys, paging keys, realms, the placeholders of secrets. A value is
 * learned the first time the two answers show it at the same place, and from then on stands for
 * its counterpart: in the requests replayed (`substitute`) and in the answers compared (`same`).
 * The map is one to one: a recorded value that comes back as two values, or two that come back
 * as one, differ. Times are never mapped: two of the same kind (Gregorian seconds, ISO 8601, Unix
 * seconds or milliseconds in a time field) are the same.
 */
export class Generated {
  private readonly forward = new Map<string, string>();
  private readonly backward = new Map<string, string>();
  private readonly secrets = new Map<string, SecretLine>();
  private readonly hosts: [string, string][] = [];

  /** The recording's placeholder of a secret. */
  addSecret(line: SecretLine): void {
    this.secrets.set(line.secret, line);
  }

  /** The line of a placeholder, when the string is one. */
  secret(value: string): SecretLine | undefined {
    return this.secrets.get(value);
  }

  /** A Host the recorded client used, and the replayed server's (the URLs answers hold name them). */
  addHost(recorded: string, replayed: string): void {
    if (recorded !== replayed && !this.hosts.some(([r]) => r === recorded)) this.hosts.push([recorded, replayed]);
  }

  /** What the replayed server generated for a recorded value, when known. */
  get(recorded: string): string | undefined {
    return this.forward.get(recorded);
  }

  /** Learns that `recorded` stands for `replayed`; false when either already stands for another value. */
  learn(recorded: string, replayed: string): boolean {
    const f = this.forward.get(recorded);
    if (f !== undefined) return f === replayed;
    if (this.backward.has(replayed)) return false;
    this.forward.set(recorded, replayed);
    this.backward.set(replayed, recorded);
    return true;
  }

  /** A recorded string as the replay sends it: every generated value in it (whole or a word) replaced by its counterpart. */
  substitute(s: string): string {
    const whole = this.forward.get(s);
    if (whole !== undefined) return whole;
    let out = s.length >= 8 ? s.replace(WORDS, (w) => this.forward.get(w) ?? w) : s;
    for (const [from, to] of this.hosts) if (out.includes(from)) out = out.replaceAll(from, to);
    return out;
  }

  /** Whether a value is one the server generated: by its field, its shape, or as a placeholder. */
  isGenerated(field: string, v: string): boolean {
    return GENERATED_FIELDS.has(field) || GENERATED_SHAPE.test(v) || this.secrets.has(v);
  }

  /**
   * Whether a recorded value (not an object or array) is the same as the replayed one at field
   * `field`: equal, or its counterpart (learned now when both are generated and new), or both
   * times of a kind, or a text whose generated words are each the counterpart of the other's.
   * With `learn` false, nothing is learned (a dry run).
   */
  same(field: string, r: unknown, n: unknown, learn = true): boolean {
    if (typeof r === 'number' && typeof n === 'number') {
      if (r === n) return true;
      const kind = timeKind(field, r);
      return kind !== undefined && kind === timeKind(field, n);
    }
    if (typeof r !== 'string' || typeof n !== 'string') return r === n;
    const f = this.forward.get(r);
    if (f !== undefined) return f === n;
    if (this.isGenerated(field, r)) {
      if (r === n && !this.backward.has(n)) return learn ? this.learn(r, n) : true;
      const rev = REVISION.exec(r);
      if (rev && REVISION.exec(n)?.[1] !== rev[1]) return false;
      if (this.backward.has(n)) return false;
      return learn ? this.learn(r, n) : true;
    }
    if (r === n) return true;
    const kind = timeKind(field, r);
    if (kind !== undefined && kind === timeKind(field, n)) return true;
    if (this.substitute(r) === n) return true;
    return this.sameWords(r, n, learn);
  }

  /** Texts alike but for their words, each word the same (see `same`). Words are compared twice: a dry run first. */
  private sameWords(r: string, n: string, learn: boolean): boolean {
    const rp = r.split(WORD_SPLIT);
    const np = n.split(WORD_SPLIT);
    if (rp.length !== np.length || rp.length < 3) return false;
    const pairs = (commit: boolean) => {
      for (let i = 0; i < rp.length; i++) {
        if (i % 2 === 0 ? rp[i] !== np[i] : !this.sameWord(rp[i], np[i], commit)) return false;
      }
      return true;
    };
    return pairs(false) && (!learn || pairs(true));
  }

  private sameWord(r: string, n: string, learn: boolean): boolean {
    if (r === n || this.substitute(r) === n) return true;
    const f = this.forward.get(r);
    if (f !== undefined) return f === n;
    if (!this.isGenerated('', r) || this.backward.has(n)) return false;
    return learn ? this.learn(r, n) : true;
  }
}

// The path is the law: an API path (`/v2/accounts/{id}/{endpoint}/{args…}`) is parsed once into
// resources, and routing, token restrictions and account access all read that one structure
// (the HTTP server for requests, `tel restrictions test` for a dry run).

/** One resource of a path: an endpoint name and the arguments that follow it. */
export interface PathResource {
  name: string;
  args: string[];
}

/** A path parsed once; routing, restrictions and authorization all read this. */
export interface ParsedPath {
  /** `v1` or `v2`; undefined when the path has no version prefix */
  version?: 'v1' | 'v2';
  /** normalised segments after the version prefix */
  segments: string[];
  /** endpoint resources in order (`/accounts/A/devices/D` → accounts [A], devices [D]) */
  resources: PathResource[];
  /** the last resource's name: the endpoint restrictions are decided on */
  endpoint?: string;
  /** the last resource's arguments */
  args: string[];
  /** the account named by `/accounts/{id}` at the start of the path */
  accountId?: string;
  /** set when the path cannot name anything tel serves (bad encoding, `..`, unknown first segment) */
  invalid?: string;
}

const HEX_ID = /^[0-9a-fA-F]{32}$/;

/**
 * Parses a request path (query string allowed) into resources. Percent-decoding happens per
 * segment after splitting, so an encoded `/` can never create or hide a segment; `.` and `..`
 * segments make the path invalid rather than being resolved; empty segments (`//`, trailing `/`)
 * are dropped; endpoint names and 32-hex ids are matched case-insensitively and lower-cased.
 */
export function parsePath(rawPath: string, endpoints: ReadonlySet<string>): ParsedPath {
  const q = rawPath.indexOf('?');
  const pathOnly = q >= 0 ? rawPath.slice(0, q) : rawPath;
  const parsed: ParsedPath = { segments: [], resources: [], args: [] };
  const raw = pathOnly.split('/').filter((s) => s !== '');
  const segments: string[] = [];
  for (const piece of raw) {
    let seg: string;
    try {
      seg = decodeURIComponent(piece);
    } catch {
      parsed.invalid = 'bad percent-encoding';
      return parsed;
    }
    if (seg.includes('/') || seg.includes('\\') || seg === '.' || seg === '..' || seg.includes('\0')) {
      parsed.invalid = 'path segment not allowed';
      return parsed;
    }
    segments.push(seg);
  }
  const first = segments[0]?.toLowerCase();
  if (first === 'v1' || first === 'v2') {
    parsed.version = first;
    segments.shift();
  }
  // The segment right after `accounts` is always the account id, even when it spells an
  // endpoint name: `/accounts/devices/devices` names account "devices", never a shared namespace.
  let accountIdNext = false;
  for (let i = 0; i < segments.length; i++) {
    const lower = segments[i].toLowerCase();
    if (endpoints.has(lower) && !accountIdNext) {
      segments[i] = lower;
      parsed.resources.push({ name: lower, args: [] });
      accountIdNext = lower === 'accounts';
    } else {
      accountIdNext = false;
      if (HEX_ID.test(segments[i])) segments[i] = lower;
      const current = parsed.resources[parsed.resources.length - 1];
      if (!current) {
        parsed.invalid = 'unknown endpoint';
        parsed.segments = segments;
        return parsed;
      }
      current.args.push(segments[i]);
    }
  }
  parsed.segments = segments;
  const last = parsed.resources[parsed.resources.length - 1];
  if (last) {
    parsed.endpoint = last.name;
    parsed.args = last.args;
  }
  const head = parsed.resources[0];
  if (head?.name === 'accounts' && head.args.length > 0) parsed.accountId = head.args[0];
  return parsed;
}

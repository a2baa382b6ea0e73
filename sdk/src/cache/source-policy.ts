/**
 * Which URLs a publisher may make this host fetch, and which the host's authoriser is asked about.
 *
 * Resource sources (spec §9) and shard sources come from the publisher: the manifest, or a shard
 * map it pins. A tool decides when they are fetched (lazy resources, shard requests), so they are
 * network requests a tool can trigger, even one with no net:connect grant. They therefore follow
 * the manifest rule, https only, and may not point at this computer or a private network: the
 * host is not a confused deputy that reads `file:///home/…` or `http://127.0.0.1:…` for a tool. The
 * installing registry is the exception (its content-addressed mirror and its own origin, wherever
 * it is, file:// and loopback test registries included), and so are origins the host lists.
 *
 * The authoriser (spec §12) hands out entitlement headers and signed URLs. It is asked only about
 * URLs on the installing registry, the party the entitlement is with, never about a URL a
 * publisher chose: otherwise a publisher could collect the user's credentials on its own server.
 */
import dns from 'node:dns/promises';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import { ipv6Words, isInternalAddress } from '../util/ip-ranges.js';

/** The rules for URLs a publisher chose (resources, shards): the installing registry and the origins the host allows. */
export interface SourcePolicy {
  /** The installing registry's v1/ URL, or null when there is none (a sideload). */
  registry: string | null;
  /** Origins (`https://mirror.intranet:8443`) the host allows although they are private. */
  allowedOrigins?: readonly string[];
}

/**
 * Whether `url` is on the registry at `registry` (its v1/ URL): the same origin for http(s), under
 * the registry's folder for file://. A null registry has nothing on it.
 */
export function onRegistry(url: URL, registry: string | null): boolean {
  if (registry === null) return false;
  let base: URL;
  try {
    base = new URL(registry);
  } catch {
    return false;
  }
  if (base.protocol === 'file:') {
    const folder = base.pathname.endsWith('/') ? base.pathname : base.pathname.replace(/[^/]*$/, '');
    return url.protocol === 'file:' && url.host === base.host && url.pathname.startsWith(folder);
  }
  return (base.protocol === 'https:' || base.protocol === 'http:') && url.origin === base.origin;
}

/**
 * Why a publisher-chosen URL must not be fetched, as a sentence that names no host path, or null
 * when it may be. Checked before any request, and again for every redirect.
 */
export function publisherSourceProblem(url: string | URL, policy: SourcePolicy): string | null {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return 'it is not an absolute URL';
  }
  if (onRegistry(parsed, policy.registry)) return null;
  if (parsed.protocol !== 'https:')
    return `only https sources are fetched for a publisher (spec §9), not ${parsed.protocol.replace(/:$/, '')}`;
  if (parsed.username !== '' || parsed.password !== '') return 'it carries a user name or password';
  if (policy.allowedOrigins?.includes(parsed.origin) === true) return null;
  if (isPrivateHost(parsed.hostname))
    return 'it points at this computer or a private network, which publishers may not make the host reach';
  return null;
}

/** Resolves a host name to its addresses (injectable for tests). */
export type LookupAddresses = (hostname: string) => Promise<string[]>;

const defaultLookup: LookupAddresses = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The same question for what a publisher-chosen https host *name* resolves to now: a sentence when
 * any address is private (a public name pointed at 127.0.0.1 or the LAN), else null. A name that
 * does not resolve is left to the request to fail. Registry URLs and allowed origins are not
 * looked up. The request resolves the name again, so a name that changes its answer in between
 * (DNS rebinding) is not caught; SECURITY.md says so.
 */
export async function publisherSourceResolvesPrivately(
  url: URL,
  policy: SourcePolicy,
  lookup: LookupAddresses = defaultLookup,
): Promise<string | null> {
  if (onRegistry(url, policy.registry) || policy.allowedOrigins?.includes(url.origin) === true) return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (url.protocol !== 'https:' || isIP(host) !== 0) return null;
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch {
    return null;
  }
  return addresses.some((a) => isPrivateHost(a))
    ? 'its name resolves to this computer or a private network, which publishers may not make the host reach'
    : null;
}

/** Names that never leave this computer or the local network. */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.lan'];

/**
 * True for loopback, private, link-local, shared (CGNAT), unspecified, multicast and reserved IP
 * literals, and for localhost and local-only names. A public name that resolves to such an address
 * is not caught here (SECURITY.md says so).
 */
function isPrivateHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (host === 'localhost' || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) return true;
  if (isIPv4(host)) return isPrivateIPv4(host);
  if (isIPv6(host)) return isPrivateIPv6(host);
  return false;
}

function isPrivateIPv4(ip: string): boolean {
  // 192.0.0.0/16 as a whole, beyond the IETF /24 the proxy's classifier names.
  const [a = 0, b = 0] = ip.split('.').map(Number);
  return isInternalAddress(ip) || (a === 192 && b === 0);
}

function isPrivateIPv6(ip: string): boolean {
  // An IPv4 address written in dotted form inside IPv6 (::ffff:a.b.c.d, ::a.b.c.d) is that address.
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (dotted?.[1] !== undefined) return isPrivateIPv4(dotted[1]);
  const words = ipv6Words(ip);
  if (words === null) return true; // unparseable: fail closed
  // The IPv4-mapped block in hex form (::ffff:7f00:1) is refused whatever it maps to.
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) return true;
  return isInternalAddress(ip);
}

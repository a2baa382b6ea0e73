/**
 * Shard sets (spec §9). A resource with `format: "shardset"` is a small JSON map
 * `{ "shards": [{ "path", "sha256", "size", "sources"? }] }`; other fields (routing vocabulary...)
 * are ignored. The trust chain is manifest -> map -> shard: the map is pinned by the manifest
 * (it is fetched as the resource itself), each shard is pinned by the map, and only the shards a
 * tool asks for (spec §7 `{"type":"shard"}`) are fetched, verified and cached.
 */
import { readFile } from 'node:fs/promises';
import type { Resource } from '../format/manifest-types.js';
import { AdcapError, isAdcapError } from '../errors.js';
import { checkEntryPath } from '../format/archive/entry-path.js';
import { SHA256_HEX } from '../util/hash.js';
import type { AuthorizeFn } from './authorize.js';
import type { ContentCache, DownloadProgressListener } from './content-cache.js';
import { resolveUrl } from './fetch.js';
import { materializeResource, resourceAuthorization, withMirrors } from './resource.js';
import type { SourcePolicy } from './source-policy.js';

/** One shard of a shard set (spec §9): its path, pin and optional sources. */
export interface ShardEntry {
  /** The shard's path inside the set, relative and `/`-separated (spec §2 path rules). */
  path: string;
  /** The shard's pinned SHA-256 (hex). */
  sha256: string;
  /** The shard's pinned size in bytes. */
  size: number;
  /** Mirrors of this shard; when absent the shard is found beside each mirror of the map. */
  sources?: string[];
}

/** A verified shard map (spec §9): its shards, by path. */
export interface ShardMap {
  /** Every shard of the set, in the map's order. */
  shards: ShardEntry[];
  /** The same shards keyed by `path`, for a tool's shard request. */
  byPath: ReadonlyMap<string, ShardEntry>;
}

/**
 * A shard path follows the package path rules of spec §2 (checkEntryPath): relative, `/`-separated,
 * printable ASCII without `\`, at most 240 bytes, no empty, `.` or `..` segments. Returns the
 * reason it fails (a sentence), or null.
 */
export function shardPathProblem(path: unknown): string | null {
  if (typeof path !== 'string') return 'The shard path is not a string.';
  try {
    checkEntryPath(path);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Parses and checks a shard map. Invalid JSON is E_JSON, a wrong shape E_SCHEMA (naming the JSON
 * pointer), a bad shard path E_PATH, the same path twice E_DUPLICATE.
 */
export function parseShardMap(input: string | Uint8Array, what = 'shard map'): ShardMap {
  let text: string;
  try {
    text = typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: true }).decode(input);
  } catch (cause) {
    throw new AdcapError('E_JSON', `The ${what} is not valid UTF-8; the publisher must fix it.`, { cause });
  }
  let value: unknown;
  try {
    // Not parseStrictJson: extra fields may hold floats (routing vectors) that hosts ignore.
    // The map's bytes are pinned by the manifest, so every host parses the same document.
    value = JSON.parse(text);
  } catch (cause) {
    throw new AdcapError('E_JSON', `The ${what} is not valid JSON (${(cause as Error).message}); the publisher must fix it.`, { cause });
  }
  const bad = (pointer: string, problem: string): AdcapError =>
    new AdcapError('E_SCHEMA', `The ${what} is malformed at ${pointer === '' ? '/' : pointer}: ${problem}.`, { details: { pointer } });
  if (!isPlainObject(value)) throw bad('', 'expected an object with a "shards" array');
  const list = value['shards'];
  if (!Array.isArray(list)) throw bad('/shards', 'expected an array');
  const shards: ShardEntry[] = [];
  const byPath = new Map<string, ShardEntry>();
  list.forEach((item: unknown, index) => {
    const at = `/shards/${index}`;
    if (!isPlainObject(item)) throw bad(at, 'expected an object');
    const { path, sha256, size, sources } = item;
    if (typeof path !== 'string') throw bad(`${at}/path`, 'expected a string');
    const problem = shardPathProblem(path);
    if (problem !== null) {
      throw new AdcapError('E_PATH', `The ${what} has an invalid shard path at ${at}/path: ${problem}`, {
        details: { pointer: `${at}/path` },
      });
    }
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) throw bad(`${at}/sha256`, 'expected 64 lowercase hex digits');
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw bad(`${at}/size`, 'expected a non-negative integer');
    let entrySources: string[] | undefined;
    if (sources !== undefined) {
      if (!Array.isArray(sources) || sources.some((s) => typeof s !== 'string'))
        throw bad(`${at}/sources`, 'expected an array of URL strings');
      entrySources = sources as string[];
    }
    if (byPath.has(path)) {
      throw new AdcapError('E_DUPLICATE', `The ${what} lists shard "${path}" twice (${at}); each shard path must be unique.`, {
        details: { pointer: `${at}/path` },
      });
    }
    const entry: ShardEntry = entrySources === undefined ? { path, sha256, size } : { path, sha256, size, sources: entrySources };
    shards.push(entry);
    byPath.set(path, entry);
  });
  return { shards, byPath };
}

/**
 * Where a shard can be downloaded from: its own sources, or (spec §9) beside each mirror of the
 * map, in the map's mirror order. Each path segment is percent-encoded, so a shard path can never
 * turn into another scheme, a query or a fragment when it is resolved.
 */
export function shardSources(resource: Resource, shard: ShardEntry): string[] {
  if (shard.sources !== undefined && shard.sources.length > 0) return shard.sources;
  const relative = shard.path.split('/').map(encodeURIComponent).join('/');
  return resource.sources.map((mapUrl) => resolveUrl(mapUrl, relative));
}

const mapCache = new Map<string, ShardMap>();
const MAP_CACHE_ENTRIES = 32;

/** Reads and parses a verified map file, remembering the parse per map SHA-256. */
async function loadShardMap(resource: Resource, mapPath: string): Promise<ShardMap> {
  const cached = mapCache.get(resource.sha256);
  if (cached !== undefined) return cached;
  const map = parseShardMap(await readFile(mapPath), `shard map of resource "${resource.id}"`);
  if (mapCache.size >= MAP_CACHE_ENTRIES) {
    const oldest = mapCache.keys().next();
    if (oldest.done !== true) mapCache.delete(oldest.value);
  }
  mapCache.set(resource.sha256, map);
  return map;
}

/** Options of `fetchShard()`. */
export interface ShardFetchOptions {
  /** The host's authoriser (spec §12); needed for shards of an `access: "entitled"` resource not yet cached. */
  authorize?: AuthorizeFn;
  /** Told `{ phase: 'download', done, total }` in bytes while the map or the shard downloads. */
  onProgress?: DownloadProgressListener;
  /** Cancels the download (E_CANCELLED). */
  signal?: AbortSignal;
  /** Content-addressed mirrors tried after the shard's own sources (see MaterializeOptions.mirrors). */
  mirrors?: string[];
  /** The publisher-source rules for the map's and the shards' sources (see MaterializeOptions.policy). */
  policy?: SourcePolicy;
}

/**
 * Returns the verified local path of one shard. `mapPath` is the verified map (from
 * materializeResource). The shard is pinned by the map; a path not in the map is E_NOT_FOUND.
 * An entitled resource's shards go through the authoriser too (spec §12).
 */
export async function fetchShard(
  cache: ContentCache,
  resource: Resource,
  mapPath: string,
  shardPath: string,
  options: ShardFetchOptions = {},
): Promise<string> {
  const map = await loadShardMap(resource, mapPath);
  const shard = map.byPath.get(shardPath);
  if (shard === undefined) {
    throw new AdcapError('E_NOT_FOUND', `Shard "${shardPath}" is not listed in the shard map of resource "${resource.id}".`, {
      details: { resource: resource.id, path: shardPath },
    });
  }
  // Hashed on read: the tool reads this file and does not check it.
  const cached = await cache.cachedPath(shard.sha256, shard.size);
  if (cached !== null) return cached;
  return cache.fetchBlob({
    sha256: shard.sha256,
    size: shard.size,
    sources: withMirrors(shardSources(resource, shard), shard.sha256, options.mirrors),
    authorize: resourceAuthorization(resource, options.authorize, options.policy),
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    onProgress: options.onProgress,
    signal: options.signal,
    what: `shard "${shard.path}" of resource "${resource.id}"`,
  });
}

/** spec §7: tool -> host `{"type":"shard","reqId":1,"resource":"id","path":"shards/x.jsonl"}`. */
export interface ShardRequestMessage {
  /** Always `'shard'`. */
  type: 'shard';
  /** The tool's number for this request, echoed in the `shard.result` answer. */
  reqId: number;
  /** The id of a shard-set resource the tool declares. */
  resource: string;
  /** The shard's path in that set's map. */
  path: string;
}

/** spec §7: host -> tool `{"type":"shard.result","reqId":1,"path":"/abs"}` or `{..., "error": "..."}`. */
export type ShardResultMessage =
  { type: 'shard.result'; reqId: number; path: string } | { type: 'shard.result'; reqId: number; error: string };

export function isShardRequest(message: unknown): message is ShardRequestMessage {
  return (
    isPlainObject(message) &&
    message['type'] === 'shard' &&
    typeof message['reqId'] === 'number' &&
    Number.isSafeInteger(message['reqId']) &&
    typeof message['resource'] === 'string' &&
    typeof message['path'] === 'string'
  );
}

interface ShardRequestHandlerOptions extends ShardFetchOptions {
  /** The resources the running tool declared (spec §7 `resources`); only their shard sets are served. */
  resources: Resource[];
}

/**
 * Answers a tool's shard requests (spec §7/§9) for the tool runner: the host fetches, verifies and
 * caches only the requested shard and replies with its local path, or with an error sentence
 * (never with URLs or headers from the authoriser). A malformed request is E_PROTOCOL, thrown, so
 * the runner can stop the tool; every other failure is an `error` answer the tool can handle.
 */
export class ShardRequestHandler {
  private readonly resources: Map<string, Resource>;
  private readonly maps = new Map<string, Promise<string>>();

  constructor(
    private readonly cache: ContentCache,
    private readonly options: ShardRequestHandlerOptions,
  ) {
    this.resources = new Map(options.resources.map((r) => [r.id, r]));
  }

  async handle(message: unknown): Promise<ShardResultMessage> {
    if (!isShardRequest(message)) {
      throw new AdcapError(
        'E_PROTOCOL',
        'The tool sent a malformed shard request; it needs an integer reqId and string resource and path.',
      );
    }
    const { reqId } = message;
    try {
      const resource = this.resources.get(message.resource);
      if (resource === undefined) {
        throw new AdcapError(
          'E_NOT_FOUND',
          `Resource "${message.resource}" is not declared by this tool, so its shards cannot be requested.`,
        );
      }
      if (resource.format !== 'shardset') {
        throw new AdcapError('E_NOT_FOUND', `Resource "${resource.id}" is not a shard set (its format is "${resource.format ?? 'file'}").`);
      }
      const problem = shardPathProblem(message.path);
      if (problem !== null) throw new AdcapError('E_PATH', `The tool asked for an invalid shard path: ${problem}`);
      const mapPath = await this.mapFor(resource);
      const path = await fetchShard(this.cache, resource, mapPath, message.path, this.options);
      return { type: 'shard.result', reqId, path };
    } catch (error) {
      return { type: 'shard.result', reqId, error: toolFacingError(error, message) };
    }
  }

  private mapFor(resource: Resource): Promise<string> {
    let pending = this.maps.get(resource.id);
    if (pending === undefined) {
      pending = materializeResource(this.cache, resource, this.options);
      // A failed map fetch is not remembered: the next request tries again.
      pending.catch(() => this.maps.delete(resource.id));
      this.maps.set(resource.id, pending);
    }
    return pending;
  }
}

/**
 * The error text a tool receives for a failed shard request. Download failures
 * and host errors are told without URLs, host paths, sizes or hashes: a tool must not learn
 * anything about what the host could not read. Refusals about the tool's own request (unknown
 * resource, bad path, not in the map) and entitlement denials say what they are.
 */
function toolFacingError(error: unknown, request: ShardRequestMessage): string {
  const what = `shard ${JSON.stringify(request.path)} of resource ${JSON.stringify(request.resource)}`;
  if (isAdcapError(error)) {
    if (['E_NOT_FOUND', 'E_PATH', 'E_ENTITLEMENT', 'E_CANCELLED'].includes(error.code)) return `${error.code}: ${error.message}`;
    if (error.code === 'E_DOWNLOAD') return `E_DOWNLOAD: The host could not download ${what} from its sources.`;
    if (['E_JSON', 'E_SCHEMA', 'E_DUPLICATE'].includes(error.code))
      return `${error.code}: The shard map of resource ${JSON.stringify(request.resource)} is malformed.`;
  }
  return `E_IO: The host could not provide ${what}.`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

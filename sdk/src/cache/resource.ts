/**
 * Resources (spec §9): large files referenced by mirrors and pinned by SHA-256 and size, fetched
 * into the content cache and handed to tools as verified local paths (spec §7: tools never fetch
 * their own datasets).
 */
import type { Resource } from '../format/manifest-types.js';
import { reasonError } from '../surface-text.js';
import type { AuthorizeFn, Authorization } from './authorize.js';
import type { ContentCache, DownloadProgressListener } from './content-cache.js';
import type { SourcePolicy } from './source-policy.js';

/** Options of `materializeResource()`. */
export interface MaterializeOptions {
  /** The host's authoriser (spec §12); required for `access: "entitled"` resources not yet cached. */
  authorize?: AuthorizeFn;
  /** Told `{ phase: 'download', done, total }` in bytes while the resource downloads. */
  onProgress?: DownloadProgressListener;
  /** Cancels the download (E_CANCELLED). */
  signal?: AbortSignal;
  /**
   * Content-addressed mirrors tried after the declared sources: base URLs under which the blob is
   * `<base><sha256>` (a registry's `<v1>/blobs/sha256/`). The pin still decides what is accepted.
   */
  mirrors?: string[];
  /**
   * The publisher-source rules: with it, declared sources must be https
   * and not private unless on the installing registry, and the authoriser is asked only about URLs
   * on that registry. The SDK's install and run paths always pass it. Without it the authoriser is
   * asked about no URL at all, so entitled content is fetched without its grant: an embedder that
   * fetches entitled content passes `{ registry: <the registry's v1/ URL>, ... }`.
   */
  policy?: SourcePolicy;
}

/** spec §9: `lazy` defaults to true (fetch on first use); `lazy: false` resources are fetched at install. */
export function isLazy(resource: Resource): boolean {
  return resource.lazy !== false;
}

/** The authorisation a download of this resource needs, or undefined for a public one. */
export function resourceAuthorization(
  resource: Resource,
  authorize: AuthorizeFn | undefined,
  policy?: SourcePolicy,
): Authorization | undefined {
  if (resource.access !== 'entitled') return undefined;
  if (authorize === undefined) {
    throw reasonError('entitlement-without-authorizer', { kind: 'resource', id: resource.id, what: `The resource "${resource.id}"` });
  }
  return {
    fn: authorize,
    // The safe default for embedders (SECURITY.md "The authoriser sees only registry URLs"): without a
    // policy naming the installing registry there is no URL the authoriser may be asked about.
    registry: policy?.registry ?? null,
    request: {
      kind: 'resource',
      id: resource.id,
      ...(resource.entitlement === undefined ? {} : { entitlement: resource.entitlement }),
    },
  };
}

/**
 * Returns the verified local path of a resource, downloading it into the cache when absent.
 * For a shard set this is the path of its (verified) shard map; see shardset.ts for the shards.
 * An already-cached blob is returned without contacting any mirror or the authoriser (spec §9:
 * fetched files are reused across versions and capabilities).
 */
export async function materializeResource(cache: ContentCache, resource: Resource, options: MaterializeOptions = {}): Promise<string> {
  // Hashed on read: the tool reads this file and does not check it.
  const cached = await cache.cachedPath(resource.sha256, resource.size);
  if (cached !== null) return cached;
  return cache.fetchBlob({
    sha256: resource.sha256,
    size: resource.size,
    sources: withMirrors(resource.sources, resource.sha256, options.mirrors),
    authorize: resourceAuthorization(resource, options.authorize, options.policy),
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    onProgress: options.onProgress,
    signal: options.signal,
    what: `resource "${resource.id}"`,
  });
}

/** `sources`, then each content-addressed mirror's URL for `sha256` (spec §9: mirrors tried in order). */
export function withMirrors(sources: readonly string[], sha256: string, mirrors: readonly string[] | undefined): string[] {
  const extra = (mirrors ?? []).map((base) => `${base}${sha256}`).filter((url) => !sources.includes(url));
  return [...sources, ...extra];
}

/**
 * Entitled downloads (spec §9 `access: "entitled"`, spec §12 distribution metadata): before fetching
 * an entitled archive or resource the host asks its authoriser, which may hand back a time-limited
 * URL and/or extra headers. Those are secrets: they are used for the one request and never logged,
 * never put in an error message and never written to disk.
 */
import { AdcapError } from '../errors.js';
import { checkUrlAllowed } from './fetch.js';

/** What the host's authoriser is asked about (spec §12): the package or resource, its entitlement and the URL. */
export interface AuthorizeRequest {
  /** Whether the download is a package archive or a resource blob. */
  kind: 'package' | 'resource';
  /** Capability id (`pub/name`) for a package, resource id for a resource. */
  id: string;
  /** The package version; absent for a resource. */
  version?: string;
  /** The entitlement the manifest's `distribution.entitlement` names, for the host to check against its user. */
  entitlement?: string;
}

/** The host authoriser's answer for one download (spec §12): extra headers and/or a replacement, time-limited URL. */
export interface AuthorizeGrant {
  /** A replacement URL (for example a signed, time-limited one). Defaults to the mirror URL. */
  url?: string;
  /** Extra request headers (for example `Authorization`). */
  headers?: Record<string, string>;
}

/**
 * Returns a grant, or null to deny (spec §12): a denial is `E_ENTITLEMENT`. The answer may be the
 * value itself or a promise of it.
 */
export type AuthorizeFn = (request: AuthorizeRequest, url: string) => AuthorizeGrant | null | Promise<AuthorizeGrant | null>;

/** What a download of entitled content takes to the host's authoriser: the callback and the request it is asked. */
export interface Authorization {
  /** The host's authoriser, as passed in `ArcotheonOptions.authorize`. */
  fn: AuthorizeFn;
  /** What the authoriser is asked about this download. */
  request: AuthorizeRequest;
  /**
   * The installing registry's v1/ URL: the authoriser is asked only about
   * sources on it (source-policy.ts `onRegistry`), other sources are fetched without its grant.
   * null or absent: no registry (a sideload, or a caller that named none), so it is asked about
   * nothing and no grant leaves for a host the publisher chose.
   */
  registry?: string | null;
}

/**
 * Asks the authoriser for one mirror URL. A thrown error or a null answer becomes E_ENTITLEMENT;
 * the message names only the public request, never the grant.
 */
export async function authorizeUrl(auth: Authorization, url: string): Promise<{ url: string; headers: Record<string, string> }> {
  const what = describeRequest(auth.request);
  let grant: AuthorizeGrant | null;
  try {
    grant = await auth.fn(auth.request, url);
  } catch (error) {
    throw new AdcapError(
      'E_ENTITLEMENT',
      `The host's authorize callback failed for ${what}, so the host could not obtain access ` +
        "to this entitled download; check the host's entitlement service or account and try again.",
      {
        cause: error,
        details: { kind: auth.request.kind, id: auth.request.id },
      },
    );
  }
  if (grant === null || typeof grant !== 'object') {
    throw new AdcapError(
      'E_ENTITLEMENT',
      `Access to ${what} was denied by the authorize callback; it needs an ` +
        `entitlement${auth.request.entitlement === undefined ? '' : ` ("${auth.request.entitlement}")`} ` +
        'this host does not have.',
      { details: { kind: auth.request.kind, id: auth.request.id } },
    );
  }
  const granted = grant.url ?? url;
  try {
    checkUrlAllowed(granted);
  } catch {
    // The granted URL is a secret (it may be signed), so neither the message nor a cause repeats it.
    throw new AdcapError(
      'E_ENTITLEMENT',
      `The authorize callback returned a URL for ${what} that is not allowed; it must be https, file or loopback http.`,
    );
  }
  return { url: granted, headers: { ...(grant.headers ?? {}) } };
}

function describeRequest(request: AuthorizeRequest): string {
  return `${request.kind} ${request.id}${request.version === undefined ? '' : `@${request.version}`}`;
}

/**
 * A sideload (spec §5, DESIGN §7 "install a local .adcap file"): the package read and its signature
 * checked against the publisher keys the remotes know; an unsigned or unknown-signer package is
 * labelled as such (installing it needs the extra confirmation), a revoked or broken one refused.
 */
import { isAdcapError } from '../errors.js';
import type { Manifest } from '../format/manifest-types.js';
import { readPackage } from '../format/package-read.js';
import { parseCapabilityId } from '../registry/layout.js';
import type { TrustedKey } from '../trust/keys.js';
import { checkPackageSignature } from '../trust/package-signature.js';
import type { AddedOrigin } from './state.js';
import type { StoreCore } from './store-core.js';

export interface SideloadCandidate {
  file: string;
  manifest: Manifest;
  manifestSha256: string;
  archiveSha256: string;
  size: number;
  unsigned: boolean;
  unknownSigner: boolean;
  signedBy: string[];
  trusted: TrustedKey[];
  /** docs/skills.md: built and signed by `adcap add` with the user's own key. */
  added?: AddedOrigin;
}

export async function inspectSideload(
  core: StoreCore,
  file: string,
  added?: { origin: AddedOrigin; ownKey: TrustedKey },
): Promise<SideloadCandidate> {
  const read = await readPackage(file, core.archiveLimits);
  const { publisher } = parseCapabilityId(read.manifest.id);
  // docs/skills.md: the user's own key is trusted for the package `adcap add` just built, and nothing else.
  const trusted = added === undefined ? await core.sources.publisherKeys(publisher) : [added.ownKey];
  let unknownSigner = false;
  let signedBy: string[] = [];
  if (read.signatureBytes !== null) {
    try {
      signedBy = checkPackageSignature(read, { trusted }).signedBy;
    } catch (error) {
      // A signature nobody we know made is labelled, not hidden; a revoked or broken one is refused.
      if (!isAdcapError(error, 'E_UNTRUSTED')) throw error;
      checkPackageSignature(read, {});
      unknownSigner = true;
    }
  }
  return {
    file,
    manifest: read.manifest,
    manifestSha256: read.manifestSha256,
    archiveSha256: read.archiveSha256,
    size: read.size,
    unsigned: read.signatureBytes === null,
    unknownSigner,
    signedBy,
    trusted,
    ...(added === undefined ? {} : { added: added.origin }),
  };
}

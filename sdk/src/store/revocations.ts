/**
 * Whether the active version of an installed capability was revoked (spec §13: a revoked version
 * is never run). One answer for `runTool`, `doctor()` and `list()`:
 *
 * - `refresh: 'auto'` (runTool, doctor): a catalogue last checked longer ago than
 *   the refresh interval (`limits.refreshAfterMs`, default 1 hour) is fetched again first, and the
 *   package document it pins is fetched when it is not stored yet, so a revocation published since
 *   reaches the user before the next run. Offline, the stored catalogue answers.
 * - `refresh: 'never'` (list): only what is stored, no network.
 *
 * Registry installs are checked against the remote they came from; sideloads against every remote
 * listing that id, matching the manifest digest (a sideload of different bytes under the same
 * version is not the revoked package). No verified evidence (no catalogue, a stale or damaged one,
 * no document) is not a revocation: doctor and update report those problems.
 */
import { isAdcapError } from '../errors.js';
import { catalogueFallbacks, parsePackageDocument } from '../registry/client/package-document.js';
import { RemoteStore } from '../registry/client/remote-store.js';
import type { RegistryClient } from '../registry/client/registry-client.js';
import { remoteStateDir } from '../registry/remotes.js';
import type { RegistrySources } from './sources.js';
import type { PackageState } from './state.js';

interface RevocationContext {
  sources: RegistrySources;
  /** The home root (stored catalogues and documents live under home/remotes/). */
  home: string;
}

export async function revocationReason(
  ctx: RevocationContext,
  id: string,
  state: PackageState,
  options: { refresh?: 'auto' | 'never' } = {},
): Promise<string | null> {
  const record = state.versions[state.active];
  if (record === undefined) return null;
  let clients: RegistryClient[];
  try {
    clients = await ctx.sources.clients();
  } catch (error) {
    if (isAdcapError(error)) return null;
    throw error;
  }
  if (record.source.kind === 'registry') {
    const remote = record.source.remote;
    clients = clients.filter((c) => c.remote.name === remote);
  }
  const refresh = options.refresh ?? 'auto';
  for (const client of clients) {
    try {
      const listed = await client.record(id, { refresh });
      if (listed === null) continue;
      const { payload } = await client.catalogue({ refresh: 'never' });
      let doc;
      if (refresh === 'never') {
        const record = listed;
        const bytes = await new RemoteStore(remoteStateDir(ctx.home, client.remote.name)).readDocument(record.doc.sha256);
        if (bytes === null) continue;
        doc = parsePackageDocument(bytes, id, catalogueFallbacks(record, payload.generatedAt));
      } else {
        // Fetched (and checked against the catalogue's pin) when the refreshed catalogue pins a new one.
        doc = await client.packageDoc(id);
      }
      const entry = doc.versions[state.active];
      if (entry === undefined || entry.status !== 'revoked') continue;
      if (record.source.kind === 'file' && entry.manifestSha256 !== record.manifestSha256) continue;
      return entry.statusReason ?? 'no reason given';
    } catch (error) {
      if (!isAdcapError(error)) throw error;
    }
  }
  return null;
}

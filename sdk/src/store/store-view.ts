/**
 * The narrow views of an Arcotheon home that the parts around the `Arcotheon` facade depend on:
 * exactly what each reads and calls, so run/, doctor, agent links, enablement
 * and the policy never depend on the whole class or its internals. `Arcotheon` and the store's
 * internal core both satisfy them structurally.
 */
import type { Manifest } from '../format/manifest-types.js';
import type { HomeLayout } from './home.js';
import type { LoadedPolicy } from './policy.js';
import type { PackageState } from './state.js';

/** The installed side of a home: its layout, each capability's state, and installed manifests. */
export interface InstalledView {
  readonly home: HomeLayout;
  /** The state of an installed capability; E_NOT_INSTALLED when it is not installed. */
  state(id: string): Promise<PackageState>;
  /** The manifest of an installed version, re-validated from disk (E_MISSING when its files are gone). */
  readInstalledManifest(id: string, version: string): Promise<Manifest>;
}

/** The organisation policy in force, read anew on every call. */
export interface PolicyView {
  policyInForce(): Promise<LoadedPolicy | null>;
}

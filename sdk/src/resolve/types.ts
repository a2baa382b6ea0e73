import type { Compat } from '../format/manifest-types.js';
import type { InterpreterRuntime } from '../format/runtime-table.js';

/** One published version of a capability, as the resolver sees it (spec §11, §12). */
export interface CandidateVersion {
  /** The version (semver). */
  version: string;
  /** spec §12: a yanked version is used only when pinned exactly; a revoked one never. */
  status?: 'yanked' | 'revoked';
  /** spec §11: ids mapped to semver ranges. */
  dependencies: Record<string, string>;
  /** Where the version runs (spec §11); absent: anywhere. */
  compat?: Compat;
  /** Whether the version ships tools: decides how an unlisted agent is treated (spec §11). */
  hasTools: boolean;
}

/** What the resolver knows about the computer and agent it installs for (spec §11). */
export interface HostEnvironment {
  /** `${os}-${arch}`, e.g. `linux-x64` (see hostPlatform()). */
  platform: string;
  /** The host's agent id and version, checked against `compat.agents`. */
  agent: { id: string; version: string };
  /** Interpreter versions found on this computer; absent means not installed (see detectRuntimes()). */
  runtimes: { [T in InterpreterRuntime]?: string };
}

/** What `resolve()` takes: the roots asked for, the versions available and what is installed. */
export interface ResolveRequest {
  /** What the user asked for: each id with a semver range (`*` for any). */
  roots: Array<{ id: string; range: string }>;
  /** The published versions of an id; an empty list means the id does not exist. */
  available: (id: string) => CandidateVersion[];
  /**
   * Installed versions, preferred over newer ones while they satisfy every constraint (like npm
   * `--prefer-dedupe`). This is a preference only: to keep installed dependents satisfied, pass
   * them as roots too.
   */
  installed?: Record<string, string>;
  /** The computer and agent to resolve for. */
  host: HostEnvironment;
  /** spec §11: prereleases are considered only when requested, or when a range names one exactly. */
  includePrerelease?: boolean;
  /** Upper bound on versions tried before giving up with E_RESOLVE (default 200000). */
  maxSteps?: number;
}

/** The versions `resolve()` chose, and the order to install them in. */
export interface Resolution {
  /** Selected version of every capability needed, roots included. */
  versions: Record<string, string>;
  /** Every selected id, dependencies before their dependents (cycles broken deterministically). */
  order: string[];
  /** For each selected id, who required what, e.g. `requested ^1.0.0`, `acme/a 2.1.0 needs ^1.0.0`. */
  reasons: Record<string, string[]>;
}

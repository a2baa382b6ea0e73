/**
 * The registry's files as TypeScript types (spec §13, DESIGN §11), complete: as this SDK writes
 * them and as its readers hand them out. Other registries and hosts read these files, so their
 * shape is a public interface: add optional fields only. The JSON Schema in
 * sdk/schema/registry-1.json is the authority (registry/schema.ts checks every file read against
 * it); a field added here is added there too. There, only the fields spec §13 names are required:
 * a registry another builder made to the spec's words loads, and registry/fallbacks.ts fills in
 * the rest (names, keywords, signers, publishedAt, contents lists...) on read.
 */
import type { Compat, Permission } from '../format/manifest-types.js';

/** The product tier a version records (spec §12): `free` or `pro`; the host enforces it. */
export type Tier = 'free' | 'pro';
/** Who may download a version (spec §12): anyone (`public`), or a host-issued authorisation (`entitled`). */
export type Access = 'public' | 'entitled';
/** Whether a publisher or root key may still sign: `active`, or `revoked`. */
export type KeyStatus = 'active' | 'revoked';

/** `registry.json` at the registry root: written by `registry init`, never served to clients as trust. */
export interface RegistryConfigFile {
  /** The registry's name. */
  registry: string;
  /** The registry layout version, 1. */
  spec: 1;
  /** Public root keys allowed to sign the catalogue (only public halves are stored). */
  rootKeys: { keyId: string; publicKey: string }[];
  /** Highest catalogue sequence ever built, so a lost v1/ folder can never reset the sequence. */
  sequence: number;
}

/** A publisher's key (spec §13): its id, public key and status. */
export interface PublisherKey {
  /** The key's id: hex SHA-256 of its raw Ed25519 public key. */
  keyId: string;
  /** The raw 32-byte Ed25519 public key, standard base64. */
  publicKey: string;
  /** `active`, or `revoked`: packages it signs are refused. */
  status: KeyStatus;
  /** When the key was revoked (ISO 8601). */
  revokedAt?: string;
}

/** `publishers/<pub>.json` (authoritative). */
export interface PublisherFile {
  /** The publisher's id, the first part of its capability ids. */
  id: string;
  /** The publisher's display name. */
  name: string;
  /** Every key the publisher has had, with its status. */
  keys: PublisherKey[];
}

/** Where a version's archive is and what pins it (spec §13): SHA-256, size and download URLs. */
export interface EntryArchive {
  /** The SHA-256 (hex) of the compressed archive; a download that hashes otherwise is refused. */
  sha256: string;
  /** The compressed archive's size in bytes; a download is capped at it. */
  size: number;
  /** Download URLs in preference order; relative ones resolve against the registry's v1/ URL. */
  urls: string[];
}

/** The contents summary of a version entry (spec §13): its skills, tools, workflows, knowledge and resources. */
export interface EntryContents {
  /** Skill directory names. */
  skills: string[];
  /** Tool names. */
  tools: string[];
  /** Workflow file stems. */
  workflows: string[];
  /** Knowledge ids. */
  knowledge: string[];
  /** Resource ids with their sizes. */
  resources: { id: string; size: number }[];
  /**
   * Skills that ship programs an agent may run outside any sandbox, with those files'
   * paths inside the skill folder. Absent in entries published before it existed.
   */
  skillPrograms?: { skill: string; programs: string[] }[];
}

/** `entries/<pub>/<name>/<version>.json`: immutable once written (spec §13). */
export interface VersionEntry {
  /** The capability id. */
  id: string;
  /** The version. */
  version: string;
  /** The SHA-256 of the canonical manifest (spec §4). */
  manifestSha256: string;
  /** The archive's pin and download URLs. */
  archive: EntryArchive;
  /** Key ids of the publisher keys that signed it. */
  signers: string[];
  /** The product tier the host should require (spec §12). */
  tier: Tier;
  /** Whether the archive needs the host's authorisation (spec §12). */
  access: Access;
  /** The manifest's distribution.entitlement, passed to the host's authorize callback. */
  entitlement?: string;
  /** The manifest's compat: platforms, agent hosts, interpreters (spec §11). */
  compat: Compat;
  /** Capability ids mapped to semver ranges. */
  dependencies: Record<string, string>;
  /** The permissions the manifest declares. */
  permissions: Permission[];
  /** What the version ships. */
  contents: EntryContents;
  /** What changed in this version. */
  changelog?: string;
  /** When the version was published (UTC). */
  publishedAt: string;
  /** Search metadata copied from the manifest, so `build` never has to open archives. */
  name: string;
  /** One line for search results. */
  summary: string;
  /** Keywords for search. */
  keywords: string[];
}

/** `status/<pub>/<name>.json` (mutable): deprecation, yanks, revocations (spec §13). */
export interface StatusFile {
  /** Set when the capability is deprecated: the publisher's message, shown beside it. */
  deprecated?: { message: string };
  /** version -> reason */
  yanked?: Record<string, string>;
  /** version -> reason */
  revoked?: Record<string, string>;
}

/** The status a registry gave a version (spec §13): `yanked` (not chosen automatically) or `revoked` (never installed or run). */
export type VersionStatus = 'yanked' | 'revoked';

/** A version entry in a package document, with its yank or revocation folded in (spec §13). */
export type DocumentVersion = VersionEntry & { status?: VersionStatus; statusReason?: string };

/** `v1/packages/<pub>/<name>.json`: every version of one capability with its status folded in. */
export interface PackageDocument {
  /** The capability's id, `publisher/name`. */
  id: string;
  /** Set when the capability is deprecated: the publisher's message. */
  deprecated?: { message: string };
  /** Every published version by version string, with its yank or revocation. */
  versions: Record<string, DocumentVersion>;
}

/** One publisher in the signed catalogue: its name and keys with their status (spec §13). */
export interface CataloguePublisher {
  /** The publisher's display name. */
  name: string;
  /** Its keys with their status; packages are accepted only with an active one. */
  keys: PublisherKey[];
}

/** One capability in the signed catalogue (spec §13): search metadata, its latest versions and the pin of its package document. */
export interface CatalogueCapability {
  /** The display name. */
  name: string;
  /** One line for search results (spec §13). */
  summary: string;
  /** The publisher id. */
  publisher: string;
  /** Highest stable version that is neither yanked nor revoked; absent when there is none. */
  latest?: string;
  /** Highest prerelease that is neither yanked nor revoked, only when newer than `latest`. */
  latestPrerelease?: string;
  /** The tier of the version shown. */
  tier: Tier;
  /** The access of the version shown. */
  access: Access;
  /** Keywords for search. */
  keywords: string[];
  /** Whether the registry deprecated the capability. */
  deprecated: boolean;
  /** Pins the package document: SHA-256 of the file's bytes (spec §13). */
  doc: { path: string; sha256: string };
}

/** The payload of `v1/catalog.json`, signed in context `arcotheon-catalog-v1`. */
export interface CataloguePayload {
  /** The registry's name. */
  registry: string;
  /** The registry layout: 1, or 2 for what a client read through v2/ (then `capabilities` is empty, see RegistryClient.record). */
  spec: 1 | 2;
  /** Grows on every build; a client refuses a lower one (spec §13). */
  sequence: number;
  /** When it was built (UTC); a client refuses one older than its maximum age (DESIGN §10). */
  generatedAt: string;
  /** Every publisher with its keys and their status. */
  publishers: Record<string, CataloguePublisher>;
  /** Every capability, by id. */
  capabilities: Record<string, CatalogueCapability>;
}

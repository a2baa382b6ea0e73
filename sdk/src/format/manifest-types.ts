/**
 * The manifest (capability.json) of format 1.0, as TypeScript types (DESIGN §3, spec §3).
 * The JSON Schema in sdk/schema/capability-1.json is the authority; these types describe a manifest
 * that has passed `validateManifest`.
 */
import type { PermissionId } from '../permissions/table.js';
import type { InterpreterRuntime, Platform, ToolRuntime } from './runtime-table.js';

/** `publisher/name`; each part lowercase letters, digits, single hyphens, 1–64 chars. */
export type CapabilityId = string;

/** The permission ids of version 1.0: the keys of the permission table (permissions/table.ts). */
export type { PermissionId };

/** A permission a manifest declares (spec §6): its id, scope and the reason shown to the user. */
export interface Permission {
  /** Which permission (spec §6 table), e.g. `fs:read` or `net:connect`. */
  id: PermissionId;
  /**
   * What it is limited to, in the form the permission's scope rule gives (a path pattern, a host, a variable name...); absent for an
   * unscoped permission.
   */
  scope?: string;
  /** Why the capability needs it, in the publisher's words, shown to the user before approval. */
  reason: string;
}

export type {
  BinaryToolRuntime,
  InterpreterToolRuntime,
  McpServerLaunch,
  McpServerSpec,
  McpToolRuntime,
  Platform,
  ToolRuntime,
} from './runtime-table.js';

/** A JSON Schema (draft 2020-12) as a plain object: a tool's input or output schema. */
export interface JsonSchemaObject {
  /** Any JSON Schema keyword: `type`, `properties`, `required`, `items`... */
  [key: string]: unknown;
}

/** A tool of a manifest (spec §7): name, description, runtime, schemas, permissions and limits. */
export interface Tool {
  /** The tool's name, unique in the manifest. */
  name: string;
  /** What the tool does, for the agent and the user. */
  description: string;
  /** How the tool runs. */
  runtime: ToolRuntime;
  /** The JSON Schema its input must match (E_INPUT otherwise). */
  inputSchema: JsonSchemaObject;
  /** The JSON Schema its output must match (E_OUTPUT otherwise). */
  outputSchema?: JsonSchemaObject;
  /** Grant strings `id` or `id:scope`, each matching a capability permission. */
  permissions?: string[];
  /** Ids of resources this tool reads through the cache. */
  resources?: string[];
  /** How long a run may take (E_TIMEOUT after). */
  timeoutMs?: number;
  /** The platforms the tool runs on, when fewer than the capability's. */
  platforms?: Platform[];
}

/** A skill of a manifest (spec §3.1): the path of its directory in the package. */
export interface SkillRef {
  /** The skill's directory in the package, holding its SKILL.md. */
  path: string;
}

/** A workflow of a manifest (spec §8): the path of its document in the package. */
export interface WorkflowRef {
  /** The workflow document's path in the package (JSON, spec §8). */
  path: string;
}

/** A knowledge entry of a manifest (spec §9): markdown, jsonl, sqlite or index, shipped or a resource. */
export interface Knowledge {
  /** The entry's id, unique in the manifest. */
  id: string;
  /** Its format. */
  kind: 'markdown' | 'jsonl' | 'sqlite' | 'index';
  /** The package path, for a shipped entry. */
  path?: string;
  /** The resource id, for a remote entry. */
  resource?: string;
  /** What it holds. */
  description?: string;
}

/** A resource of a manifest (spec §9): a large file fetched from mirrors and pinned by SHA-256 and size. */
export interface Resource {
  /** The resource id, unique in the manifest. */
  id: string;
  /** What it holds (a dataset, a model...), free text. */
  kind: string;
  /** HTTPS mirrors, tried in order (spec §9). */
  sources: string[];
  /** The SHA-256 that pins the content. */
  sha256: string;
  /** The size in bytes that pins the content. */
  size: number;
  /** `entitled` when a download needs the host's authorisation (spec §12). */
  access?: 'public' | 'entitled';
  /** The entitlement the host's authoriser is asked for. */
  entitlement?: string;
  /** The content's license. */
  license?: string;
  /** Fetched on first use (true, the default) or at install (false). */
  lazy?: boolean;
  /** `shardset` for a shard map (spec §9), else a plain file. */
  format?: 'file' | 'shardset';
}

/** A model or inference backend a capability can use (spec §10): a description; the host decides whether to connect. */
export interface Adapter {
  /** The adapter id, unique in the manifest. */
  id: string;
  /** A model, or an inference backend. */
  kind: 'model' | 'inference-backend';
  /** Who provides it. */
  provider: string;
  /** The protocol a host speaks to it. */
  protocol: string;
  /** Where it is reached (never with credentials). */
  endpoint?: string;
  /** The model's name at the provider. */
  model?: string;
  /** The id of a resource holding it (weights). */
  resource?: string;
}

/** Where a capability runs (spec §11): platforms, agent hosts with semver ranges, interpreter requirements. */
export interface Compat {
  /** The platforms it runs on: `any` or `os-arch` values such as `linux-x64` and `darwin-arm64`. */
  platforms?: Platform[];
  /** Agent host id -> semver range; when the capability ships tools, a host not listed is incompatible. */
  agents?: Record<string, string>;
  /** Interpreter ranges, keyed by the runtime table's interpreters (spec §11). */
  runtimes?: { [T in InterpreterRuntime]?: string };
}

/** The manifest's distribution block (spec §12): product tier, access and the entitlement to ask for. */
export interface Distribution {
  /** The product tier: `pro` capabilities are for the host's paying users (the host checks, spec §12); default `free`. */
  tier?: 'free' | 'pro';
  /** `entitled` downloads go through the host's authoriser; default `public`. */
  access?: 'public' | 'entitled';
  /** The entitlement the authoriser is asked about for an `entitled` download. */
  entitlement?: string;
}

/** One file of a package as the manifest pins it (spec §2): its path, SHA-256 and size. */
export interface FileEntry {
  /** The file's path in the package, relative and `/`-separated. */
  path: string;
  /** The SHA-256 of its bytes (hex); a file that hashes otherwise is refused. */
  sha256: string;
  /** Its size in bytes. */
  size: number;
  /** True for a file written with mode 0755 (a binary tool's entry); default false. */
  executable?: boolean;
}

/** A capability's manifest, capability.json (spec §3, DESIGN §3), as validated. */
export interface Manifest {
  /** The format version, `"1.0"` (spec §14: a reader refuses a major it does not support). */
  adcap: string;
  /** The capability id, `publisher/name` (DESIGN §3). */
  id: CapabilityId;
  /** The version, strict semver 2.0. */
  version: string;
  /** The display name, at most 80 characters. */
  name: string;
  /** One line for search results, at most 200 characters. */
  summary: string;
  /** Longer text (markdown), at most 8000 characters. */
  description?: string;
  /** An SPDX license expression. */
  license?: string;
  /** An https URL. */
  homepage?: string;
  /** An https URL of the source. */
  repository?: string;
  /** Up to 20 keywords for search. */
  keywords?: string[];
  /** The package path of the icon. */
  icon?: string;
  /** The package path of the readme. */
  readme?: string;
  /** What changed in this version. */
  changelog?: string;
  /** Agent Skills directories (spec §3.1). */
  skills?: SkillRef[];
  /** The tools (spec §7). */
  tools?: Tool[];
  /** Workflow documents (spec §8). */
  workflows?: WorkflowRef[];
  /** Knowledge entries (spec §9). */
  knowledge?: Knowledge[];
  /** Resources fetched from mirrors, pinned by SHA-256 and size (spec §9). */
  resources?: Resource[];
  /** The permissions its tools may be granted (spec §6). */
  permissions?: Permission[];
  /** Models or inference backends the capability can use (spec §10). */
  adapters?: Adapter[];
  /** Capability ids mapped to semver ranges (spec §11). */
  dependencies?: Record<CapabilityId, string>;
  /** Platforms, agent hosts and interpreters it runs with (spec §11). */
  compat?: Compat;
  /** Product tier and access (spec §12). */
  distribution?: Distribution;
  /** Every file of the package with its SHA-256 and size (spec §2). */
  files: FileEntry[];
  /** Vendor data (spec §14: the only open top-level field). */
  x?: Record<string, unknown>;
}

/** A manifest as an author writes it: `files` is computed by the builder. */
export type ManifestSource = Omit<Manifest, 'files'> & { files?: FileEntry[] };

/** The format version this SDK reads and writes (spec §14). */
export const ADCAP_FORMAT_VERSION = '1.0';
/** The highest `adcap` major version this SDK reads (spec §14: a newer major is refused with E_VERSION_MAJOR). */
export const ADCAP_SUPPORTED_MAJOR = 1;

/** The SIGNATURE.json envelope (spec §5, DESIGN §4). */
export interface SignatureEntry {
  /** The signing key's id: the SHA-256 of its raw 32-byte Ed25519 public key, in hex. */
  keyId: string;
  /** The signature algorithm; always `ed25519` in 1.0. */
  alg: 'ed25519';
  /** The Ed25519 signature over the envelope's signed message, in base64. */
  sig: string;
}

/** A signed envelope (spec §5): a payload and the signatures over it in one context. */
export interface Envelope<P> {
  /** What is signed. */
  payload: P;
  /** One or more signatures over the payload, by key id. */
  signatures: SignatureEntry[];
}

/** The payload a package signature covers (spec §5): the capability's id, version and manifest digest. */
export interface PackagePayload {
  /** The format version the package is written in, `"1.0"`. */
  adcap: string;
  /** The capability's id, `publisher/name`. */
  id: CapabilityId;
  /** The capability's version (semver). */
  version: string;
  /** The SHA-256 (hex) of the manifest's canonical JSON, which pins every file. */
  manifestSha256: string;
}

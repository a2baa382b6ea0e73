/**
 * The manifest (capability.json) of format 1.0, as TypeScript types (DESIGN §3, spec §3).
 * The JSON Schema in sdk/schema/capability-1.json is the authority; these types describe a manifest
 * that has passed `validateManifest`.
 */
import type { PermissionId } from '../permissions/table.js';
import type { BinaryRuntime, InterpreterRuntime, ReservedRuntime } from './runtime-table.js';

/** `publisher/name`; each part lowercase letters, digits, single hyphens, 1–64 chars. */
export type CapabilityId = string;

/** The permission ids of version 1.0: the keys of the permission table (permissions/table.ts). */
export type { PermissionId };

export interface Permission {
  id: PermissionId;
  scope?: string;
  reason: string;
}

export type Platform = string; // "any" | "linux-x64" | "darwin-arm64" | "win32-x64" | ...

/** A tool's runtime, by kind of `type` (the runtime table, format/runtime-table.ts). */
export type InterpreterToolRuntime = { type: InterpreterRuntime; entry: string; version?: string };
export type BinaryToolRuntime = { type: BinaryRuntime; entries: Record<Platform, string> };
export type ToolRuntime = InterpreterToolRuntime | BinaryToolRuntime | { type: ReservedRuntime; [key: string]: unknown };

export interface JsonSchemaObject {
  [key: string]: unknown;
}

export interface Tool {
  name: string;
  description: string;
  runtime: ToolRuntime;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  /** Grant strings `id` or `id:scope`, each matching a capability permission. */
  permissions?: string[];
  /** Ids of resources this tool reads through the cache. */
  resources?: string[];
  timeoutMs?: number;
  platforms?: Platform[];
}

export interface SkillRef {
  path: string;
}

export interface WorkflowRef {
  path: string;
}

export interface Knowledge {
  id: string;
  kind: 'markdown' | 'jsonl' | 'sqlite' | 'index';
  path?: string;
  resource?: string;
  description?: string;
}

export interface Resource {
  id: string;
  kind: string;
  sources: string[];
  sha256: string;
  size: number;
  access?: 'public' | 'entitled';
  entitlement?: string;
  license?: string;
  lazy?: boolean;
  format?: 'file' | 'shardset';
}

export interface Adapter {
  id: string;
  kind: 'model' | 'inference-backend';
  provider: string;
  protocol: string;
  endpoint?: string;
  model?: string;
  resource?: string;
}

export interface Compat {
  platforms?: Platform[];
  agents?: Record<string, string>;
  /** Interpreter ranges, keyed by the runtime table's interpreters (spec §11). */
  runtimes?: { [T in InterpreterRuntime]?: string };
}

export interface Distribution {
  tier?: 'free' | 'pro';
  access?: 'public' | 'entitled';
  entitlement?: string;
}

export interface FileEntry {
  path: string;
  sha256: string;
  size: number;
  executable?: boolean;
}

export interface Manifest {
  adcap: string;
  id: CapabilityId;
  version: string;
  name: string;
  summary: string;
  description?: string;
  license?: string;
  homepage?: string;
  repository?: string;
  keywords?: string[];
  icon?: string;
  readme?: string;
  changelog?: string;
  skills?: SkillRef[];
  tools?: Tool[];
  workflows?: WorkflowRef[];
  knowledge?: Knowledge[];
  resources?: Resource[];
  permissions?: Permission[];
  adapters?: Adapter[];
  dependencies?: Record<CapabilityId, string>;
  compat?: Compat;
  distribution?: Distribution;
  files: FileEntry[];
  x?: Record<string, unknown>;
}

/** A manifest as an author writes it: `files` is computed by the builder. */
export type ManifestSource = Omit<Manifest, 'files'> & { files?: FileEntry[] };

/** The format version this SDK reads and writes (spec §14). */
export const ADCAP_FORMAT_VERSION = '1.0';
export const ADCAP_SUPPORTED_MAJOR = 1;

/** The SIGNATURE.json envelope (spec §5, DESIGN §4). */
export interface SignatureEntry {
  keyId: string;
  alg: 'ed25519';
  sig: string;
}

export interface Envelope<P> {
  payload: P;
  signatures: SignatureEntry[];
}

export interface PackagePayload {
  adcap: string;
  id: CapabilityId;
  version: string;
  manifestSha256: string;
}

/**
 * The registry's files checked against the JSON Schema shipped with the SDK (sdk/schema/registry-1.json,
 * one definition per file of spec §13 / DESIGN §11), the way capability.json is checked against
 * capability-1.json. The schema says what each file holds; the few rules a schema cannot state
 * (a keyId is the SHA-256 of its publicKey, a file describes the id its path names) stay with the
 * callers, which also choose the error code: E_CATALOG for the catalogue, E_DOC_HASH for a package
 * document, E_SCHEMA for the registry's source files.
 *
 * The validators are compiled ahead of time (generated/registry-schema-validators.ts, from
 * build/schema-validators.mjs), stopping at the first problem: a hostile 16 MiB catalogue must not
 * make the client collect an error object for every one of its entries. The schema is ours and
 * shipped, so it is not checked against the meta-schema at run time; test/sdk/registry/schema.test.ts
 * checks it, and test/build/schema-validators.test.ts that the generated code is current.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { describeSchemaErrors, type SchemaProblem } from '../format/json-schema.js';
import * as generated from '../generated/registry-schema-validators.js';
import type {
  CatalogueCapability,
  CataloguePayload,
  CataloguePublisher,
  EntryContents,
  PublisherFile,
  RegistryConfigFile,
  StatusFile,
  VersionEntry,
  VersionStatus,
} from './types.js';

const REGISTRY_SCHEMA_FILE = 'registry-1.json';
export const REGISTRY_SCHEMA_ID = 'https://arcotheon.dev/schema/registry-1.json';

/** Makes the keys K of T optional. */
type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/**
 * A version entry as a registry may write it: spec §13 names manifestSha256, the archive, tier,
 * access, compat, dependencies, permissions, contents and changelog; the rest is this SDK's own
 * and filled on read (fallbacks.ts), as are the contents lists.
 */
export type VersionEntryFile = Optional<VersionEntry, 'id' | 'version' | 'signers' | 'publishedAt' | 'name' | 'summary' | 'keywords'> & {
  contents: Partial<EntryContents>;
};

/** A package document's version as a registry may write it (VersionEntryFile with its status). */
export type DocumentVersionFile = VersionEntryFile & { status?: VersionStatus; statusReason?: string };

/** A package document as a registry may write it: its id is the one the catalogue pins it under. */
export interface PackageDocumentFile {
  id?: string;
  deprecated?: { message: string };
  versions: Record<string, DocumentVersionFile>;
}

/** A catalogue record as a registry may write it: spec §13 names latest, latestPrerelease, summary and doc. */
export type CatalogueCapabilityFile = Optional<CatalogueCapability, 'name' | 'publisher' | 'tier' | 'access' | 'keywords' | 'deprecated'>;

/** A catalogue payload as a registry may write it (spec §13: publishers carry their keys and status). */
export type CataloguePayloadFile = Omit<CataloguePayload, 'publishers' | 'capabilities'> & {
  publishers: Record<string, Optional<CataloguePublisher, 'name'>>;
  capabilities: Record<string, CatalogueCapabilityFile>;
};

/** Each registry file and the type its definition in registry-1.json checks. */
export interface RegistryDocuments {
  /** `sequence` may be absent in a registry.json written before the floor existed (read as 0). */
  registryConfig: Omit<RegistryConfigFile, 'sequence'> & { sequence?: number };
  publisherFile: Optional<PublisherFile, 'name'>;
  versionEntry: VersionEntryFile;
  statusFile: StatusFile;
  packageDocument: PackageDocumentFile;
  cataloguePayload: CataloguePayloadFile;
}

export type RegistryDocumentKind = keyof RegistryDocuments;

/**
 * Returns `value` typed as the registry file `kind` when it matches its definition; otherwise throws
 * what `refuse` makes of the first problem, whose `text` names the JSON pointer, what is wrong in
 * plain words and the failed keyword, e.g. `/capabilities/acme~1pdf/tier must be "free" or "pro" (enum)`.
 */
export function checkRegistryDocument<K extends RegistryDocumentKind>(
  kind: K,
  value: unknown,
  refuse: (problem: SchemaProblem) => Error,
): RegistryDocuments[K] {
  // The generated module exports one validator per registry file, named after its kind.
  const validate = generated[kind] as ValidateFunction<RegistryDocuments[K]>;
  if (validate(value)) return value;
  const [first] = describeSchemaErrors(validate.errors ?? [], '', { formatDocument: false });
  throw refuse(
    first ?? { pointer: '', keyword: 'schema', text: `/ does not match the ${kind} definition of ${REGISTRY_SCHEMA_FILE} (schema)` },
  );
}

/**
 * @arcotheon/sdk public exports. Everything exported here follows semver (host contract,
 * "Versioning of this contract") and is listed in sdk/README.md.
 */
export { AdcapError, ERROR_CODES, isAdcapError, type ErrorCode } from './errors.js';
export { canonicalJson, manifestDigest } from './format/canonical-json.js';
export { parseStrictJson } from './format/strict-json.js';
export type * from './format/manifest-types.js';
export { ADCAP_FORMAT_VERSION, ADCAP_SUPPORTED_MAJOR } from './format/manifest-types.js';
export { validateManifest, MANIFEST_RULES, type ManifestRule } from './format/manifest.js';
export { validateSkillDocument, SKILL_RULES, type SkillFrontMatter } from './format/skills.js';
export { validateWorkflowDocument, parseTemplatePath, templatePaths, isToolStep, WORKFLOW_RULES, type WorkflowDocument, type WorkflowStep, type WorkflowToolStep, type WorkflowAgentStep } from './format/workflow-doc.js';
export * from './permissions/index.js';
export { generateKey, generateKey as keygen, keyFromSeed, keyIdOf, parseKeyFile, publicKeyOf, readKeyFile, trustedKeyFromPublicKey, writeKeyFile, type KeyFile, type TrustedKey } from './trust/keys.js';
export { CATALOG_CONTEXT, PACKAGE_CONTEXT, parseEnvelope, signedMessage, signEnvelope, verifyEnvelope, type SignatureContext, type VerifiedEnvelope } from './trust/envelope.js';
export { buildSignedPackage, checkPackageSignature, packagePayload, signPackage, verifyPackage, type PackageSignatureOptions, type PackageSignatureResult, type SignedBuild, type SignedPackage, type VerifiedPackage, type VerifyPackageOptions } from './trust/package-signature.js';
export { checkUrlAllowed, fetchCapped, isLoopbackHost, resolveUrl, type FetchCappedOptions, type FetchLike } from './cache/fetch.js';
export type { AuthorizeFn, AuthorizeGrant, AuthorizeRequest, Authorization } from './cache/authorize.js';
export { ContentCache, type BlobRequest, type ContentCacheOptions, type GcResult, type VerifyResult } from './cache/content-cache.js';
export { isLazy, materializeResource, type MaterializeOptions } from './cache/resource.js';
export { fetchShard, isShardRequest, parseShardMap, ShardRequestHandler, type ShardEntry, type ShardMap, type ShardRequestMessage, type ShardResultMessage } from './cache/shardset.js';
export { resolve } from './resolve/resolver.js';
export { checkCompatibility, hostPlatform, type CompatibilityCandidate, type CompatibilityResult } from './resolve/compat.js';
export { detectRuntimes, type DetectedRuntimes } from './resolve/runtimes.js';
export type { CandidateVersion, HostEnvironment, ResolveRequest, Resolution } from './resolve/types.js';
export { interpretGrants, isScopeEnforced, splitGrant, stdioFor, type Sandbox, type SandboxGrants, type SandboxName, type SandboxSpec, type WrappedCommand } from './sandbox/sandbox.js';
export { BubblewrapSandbox, planBubblewrap, BUBBLEWRAP_BASE_PROFILE, type BubblewrapOptions, type BubblewrapPlan } from './sandbox/bubblewrap.js';
export { buildSandboxExecProfile, SandboxExecSandbox, TOOL_PROFILE_TEMPLATE } from './sandbox/sandbox-exec.js';
export { NoSandbox } from './sandbox/none.js';
export { defaultSandbox, type DefaultSandboxOptions } from './sandbox/select.js';
export { buildSeccompProgram, encodeSeccompProgram, seccompFilterForHost, type SeccompArch } from './sandbox/seccomp.js';
export { startNetProxy, type NetProxy, type NetProxyOptions } from './sandbox/net-proxy.js';
export type * from './registry/types.js';
export { foldPackageDocument, latestVersions } from './registry/documents.js';
export { buildCataloguePayload, DEFAULT_MAX_CATALOG_AGE_MS, publisherTrustedKeys, verifyCatalogue, type CatalogueState, type RootKey, type VerifiedCatalogue } from './registry/catalogue.js';
export { SearchIndex, searchCatalogue, type SearchFilters, type SearchHit } from './registry/search.js';
export { addRemote, getRemote, listRemotes, readHomeConfig, removeRemote, updateHomeConfig, type HomeConfig, type RemoteConfig } from './registry/remotes.js';
export { RegistryClient, DEFAULT_MAX_CATALOG_BYTES, DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_REFRESH_AFTER_MS, type BlobFetcher, type DownloadedArchive, type DownloadOptions, type LoadedCatalogue, type RegistryClientOptions } from './registry/client/registry-client.js';
export { addPublisher, deprecateCapability, initRegistry, revokeKey, revokeVersion, yankVersion } from './registry/builder/maintain.js';
export { publishPackage, type PublishResult } from './registry/builder/publish.js';
export { buildRegistry, type BuildResult } from './registry/builder/build.js';
export { serveRegistry, type ServedRegistry } from './registry/builder/serve.js';

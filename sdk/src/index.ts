/**
 * @arcotheon/sdk public exports: what hosts (the host integration contract) and publishers need.
 * Everything exported here follows semver (host contract, "Versioning of this contract"), is
 * listed in sdk/README.md and recorded in sdk/api/sdk.api.md (`npm run api:check` fails when they
 * differ; `npm run api:update` rewrites the report). Building blocks the SDK's own command, the
 * Arcotheon app and the tests use are in ./internal.ts (`@arcotheon/sdk/internal`), without that promise.
 */
export {
  AdcapError,
  ERROR_CODES,
  isAdcapError,
  type AdcapErrorOf,
  type AdcapErrorOptions,
  type ErrorCode,
  type ErrorDetails,
  type ErrorDetailsByCode,
} from './errors.js';
export { canonicalJson, manifestDigest } from './format/canonical-json.js';
export { parseStrictJson } from './format/strict-json.js';
export type * from './format/manifest-types.js';
export { ADCAP_FORMAT_VERSION, ADCAP_SUPPORTED_MAJOR } from './format/manifest-types.js';
export type { BinaryRuntime, InterpreterRuntime, McpRuntime, ReservedRuntime } from './format/runtime-table.js';
export { validateManifest } from './format/manifest.js';
export { buildPackage, type BuildPackageOptions, type BuiltPackage } from './format/package-build.js';
export { readPackage, type ReadPackage, type ReadPackageOptions } from './format/package-read.js';
export { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './format/archive/limits.js';
export { PROGRESS_PHASES, type Progress, type ProgressListener, type ProgressPhase } from './util/progress.js';
export { watchChanges, type ChangeEvent, type ChangeWatcher, type WatchChangesOptions } from './store/change-events.js';
export { skillDocumentProblems, validateSkillDocument, type SkillFrontMatter } from './format/skills.js';
export {
  findSkills,
  initSkillsRepository,
  type FoundSkill,
  type InitSkillsOptions,
  type InitSkillsResult,
  type SkillPrograms,
  type SourceWarning,
} from './format/skill-repo.js';
export type { SkillBuildProblem } from './format/package-build.js';
export {
  validateWorkflowDocument,
  isToolStep,
  type WorkflowDocument,
  type WorkflowStep,
  type WorkflowToolStep,
  type WorkflowAgentStep,
} from './format/workflow-doc.js';
export {
  PERMISSION_IDS,
  isPermissionId,
  parseGrant,
  grantString,
  grantCovers,
  netScopeAllows,
  PERMISSION_TABLE,
  describePermission,
  riskLevel,
} from './permissions/index.js';
export type { Grant, NetScope, PermissionKind, SandboxKind, DescribeOptions, RiskLevel, ScopeRule } from './permissions/index.js';
export {
  generateKey,
  generateKey as keygen,
  keyIdOf,
  readKeyFile,
  trustedKeyFromPublicKey,
  writeKeyFile,
  type KeyFile,
  type TrustedKey,
} from './trust/keys.js';
export {
  buildSignedPackage,
  parsePackageEnvelope,
  signPackage,
  verifyPackage,
  type PackageSignatureOptions,
  type PackageSignatureResult,
  type SignedBuild,
  type SignedPackage,
  type VerifiedPackage,
  type VerifyPackageOptions,
} from './trust/package-signature.js';
export { type FetchLike } from './cache/fetch.js';
export type { AuthorizeFn, AuthorizeGrant, AuthorizeRequest, Authorization } from './cache/authorize.js';
export {
  ContentCache,
  type BlobRequest,
  type DownloadProgressListener,
  type EntryState,
  type ContentCacheOptions,
  type GcResult,
  type VerifyResult,
} from './cache/content-cache.js';
export { materializeResource, type MaterializeOptions } from './cache/resource.js';
export {
  fetchShard,
  type ShardEntry,
  type ShardFetchOptions,
  type ShardMap,
  type ShardRequestMessage,
  type ShardResultMessage,
} from './cache/shardset.js';
export { resolve } from './resolve/resolver.js';
export { checkCompatibility, hostPlatform, type CompatibilityCandidate, type CompatibilityResult } from './resolve/compat.js';
export { type DetectedRuntimes } from './resolve/runtimes.js';
export type { CandidateVersion, HostEnvironment, ResolveRequest, Resolution } from './resolve/types.js';
export {
  isScopeEnforced,
  type Sandbox,
  type SandboxGrants,
  type OwnedWrappedCommand,
  type SandboxName,
  type SandboxSpec,
  type WrappedCommand,
} from './sandbox/sandbox.js';
export { BubblewrapSandbox, type BubblewrapOptions } from './sandbox/bubblewrap.js';
export { SandboxExecSandbox } from './sandbox/sandbox-exec.js';
export { DEFAULT_RESOURCE_LIMITS, limitEnforcement, type LimitEnforcement, type ResourceLimits } from './sandbox/limits.js';
export { NoSandbox } from './sandbox/none.js';
export { defaultSandbox, type DefaultSandboxOptions } from './sandbox/select.js';
export type * from './registry/types.js';
export {
  verifyCatalogue,
  type CatalogueState,
  type CatalogueVerificationRecord,
  type RootKey,
  type VerifiedCatalogue,
} from './registry/catalogue.js';
export { type SearchFilters, type SearchHit } from './registry/search.js';
export { addRemote, getRemote, listRemotes, removeRemote, type HomeConfig, type RemoteConfig } from './registry/remotes.js';
export {
  RegistryClient,
  type BlobFetcher,
  type BlobUser,
  type DownloadedArchive,
  type DownloadOptions,
  type ExtractOptions,
  type LoadedCatalogue,
  type RegistryClientOptions,
  type RegistryLayout,
} from './registry/client/registry-client.js';
export type { RemoteAttempt } from './registry/client/remote-store.js';
export { addPublisher, deprecateCapability, initRegistry, revokeKey, revokeVersion, yankVersion } from './registry/builder/maintain.js';
export { publishPackage, type PublishResult } from './registry/builder/publish.js';
export { buildRegistry, type BuildRegistryOptions, type BuildResult } from './registry/builder/build.js';
export type { V2BuildResult } from './registry/builder/build-v2.js';
export { serveRegistry, type ServedRegistry } from './registry/builder/serve.js';
export { mirrorBlob, resourceBlobRelativePath, type MirroredBlob } from './registry/builder/mirror.js';
export { shippedRemote } from './registry/embedded.js';
export { ARCOTHEON_ROOT_KEYS } from './registry/root-keys.js';
export type { DamagedMark } from './store/installed.js';
export {
  Arcotheon,
  type ApplyOptions,
  type ApplyResult,
  type ArcotheonOptions,
  type HostInfo,
  type InstallRequest,
  type InstalledCapability,
  type LifecycleProgress,
  type PackageSpec,
  type PinnedUpdate,
  type SandboxChoice,
  type UpdateResult,
  type WaitingUpdate,
} from './store/arcotheon.js';
export { type Plan, type PlanAction, type PlanItem, type PlanPermission, type PlanSource } from './store/plan.js';
export type { LookupAddresses, SourcePolicy } from './cache/source-policy.js';
export type { ChangedWhileChecking, DoctorOptions, DoctorReport, Problem, ProblemKind } from './store/doctor.js';
export {
  AGENT_IDS,
  AGENTS,
  type AgentDefinition,
  type AgentId,
  type McpRegistration,
  type McpServerCommand,
} from './store/agent-links/agents.js';
export type { AgentStatus } from './store/agent-links/agents-status.js';
export type { LinkOptions, LinkResult, UnlinkResult } from './store/agent-links/link-skills.js';
export type { PresentLinkResult } from './store/agent-links/link-present.js';
export type { PresenceOptions } from './store/agent-links/presence.js';
export type { LinkRecord, LinkState, LinkStatus } from './store/agent-links/records.js';
export type { AddedOrigin, DisabledMark, InstallSource, PackageState, VersionRecord } from './store/state.js';
export type { EnablementHook, EnablementResult } from './store/enablement.js';
export {
  checkPolicy,
  describePolicy,
  loadPolicy,
  systemPolicyPath,
  type LoadedPolicy,
  type LoadPolicyOptions,
  type Policy,
  type PolicyRemote,
  type PolicyRule,
} from './store/policy.js';
export type { ManagedMark, PolicyApplyResult } from './store/policy-enforce.js';
export { AuditLog, type AuditEvent, type AuditLine } from './run/audit.js';
export { runTool, type RunProgress, type RunToolOptions, type ToolRunResult } from './run/run-tool.js';
export { platformDataDir } from './cli/context.js';
export { isCapabilityId, isIdPart } from './util/capability-id.js';
export { FileSecretStore, type SecretRequest, type SecretSource, type SecretStore } from './run/secrets.js';
export {
  MAX_AGENT_OUTPUT_BYTES,
  resumeWorkflow,
  runWorkflow,
  type RunWorkflowOptions,
  type WorkflowAgentStepResult,
  type WorkflowRunResult,
  type WorkflowStepResult,
  type WorkflowToolStepResult,
} from './run/workflow.js';
export {
  interpolate as interpolateTemplates,
  interpolateText as interpolateInstruction,
  lookup as templateValue,
  type TemplateScope,
} from './run/templates.js';
export { mcpServe, type McpServeOptions, type McpServerHandle } from './run/mcp.js';
export type { Surface } from './surface-text.js';
export { checkWorkspace } from './run/workspace.js';
export type { CallMessage, ToolContext, ToolMessage } from './run/protocol.js';
export type { Interpreters } from './run/runtimes.js';

/**
 * @arcotheon/sdk/internal: building blocks of the SDK that the `adcap` command, the Arcotheon app,
 * the tests and the example registry use beside the public exports of ./index.ts. Not covered by
 * semver: a minor or patch release may change or remove any of them. Hosts use `@arcotheon/sdk`.
 * Recorded in sdk/api/sdk-internal.api.md so that changes are visible in review.
 */
export { MANIFEST_RULES, type ManifestRule } from './format/manifest.js';
export { errorReason, reasonError, surfaceMessage, uiNextStep, type ErrorReason, type Surface } from './surface-text.js';
export { IGNORE_FILE } from './format/package-build.js';
export { MANIFEST_ENTRY, SIGNATURE_ENTRY } from './format/package-read.js';
export { writeArchive, type ArchiveEntrySource } from './format/archive/writer.js';
export { readArchive, type ArchiveSummary, type ReadArchiveOptions } from './format/archive/reader.js';
export type { ArchiveEntryHeader, ArchiveVisitor } from './format/archive/tar-parser.js';
export { checkEntryPath } from './format/archive/entry-path.js';
export { SKILL_RULES } from './format/skills.js';
export { toolDataUsage } from './store/tool-data.js';
export { skillProblemFixes, type SkillProblemFix } from './format/skills.js';
export { isSkillProgram, skillProgramsOf, skillProgramsSentence, sourceFileWarnings } from './format/skill-repo.js';
export { parseTemplatePath, templatePaths, WORKFLOW_RULES } from './format/workflow-doc.js';
export {
  validateScope,
  parseFsScope,
  parseNetScope,
  netScopeCovers,
  fsWriteTargetsOwnDir,
  scopeProblem,
  type FsScope,
} from './permissions/index.js';
export { capabilityRisk, type CapabilityRisk, type OverallRisk, type RiskFactor, type RiskPart } from './permissions/capability-risk.js';
export { grantsAfterRollback } from './store/grant-revocations.js';
export { keyFromSeed, parseKeyFile, publicKeyOf } from './trust/keys.js';
export {
  CATALOG_CONTEXT,
  PACKAGE_CONTEXT,
  parseEnvelope,
  signedMessage,
  signEnvelope,
  verifyEnvelope,
  type SignatureContext,
  type VerifiedEnvelope,
} from './trust/envelope.js';
export { checkPackageSignature } from './trust/package-signature.js';
export { checkUrlAllowed, fetchCapped, isLoopbackHost, resolveUrl, type FetchCappedOptions } from './cache/fetch.js';
export { isLazy } from './cache/resource.js';
export { isShardRequest, parseShardMap, ShardRequestHandler } from './cache/shardset.js';
export { detectRuntimes } from './resolve/runtimes.js';
export { interpretGrants, splitGrant, stdioFor } from './sandbox/sandbox.js';
export { planBubblewrap, BUBBLEWRAP_BASE_PROFILE, type BubblewrapPlan } from './sandbox/bubblewrap.js';
export { buildSandboxExecProfile, TOOL_PROFILE_TEMPLATE } from './sandbox/sandbox-exec.js';
export { buildSeccompProgram, encodeSeccompProgram, seccompFilterForHost, type SeccompArch } from './sandbox/seccomp.js';
export { startNetProxy, type NetProxy, type NetProxyOptions } from './sandbox/net-proxy.js';
export { foldPackageDocument, latestVersions } from './registry/documents.js';
export { buildCataloguePayload, publisherTrustedKeys } from './registry/catalogue.js';
export { SearchIndex, searchCatalogue } from './registry/search.js';
export type { StoredListing } from './registry/client/registry-client.js';
export { readHomeConfig, updateHomeConfig } from './registry/remotes.js';
export { EMBEDDED_REGISTRY_ENV, EMBEDDED_REMOTE_FILE, loadEmbeddedRemote, readEmbeddedRemote } from './registry/embedded.js';
export { formatBytes } from './store/plan.js';
export { onRegistry, publisherSourceProblem } from './cache/source-policy.js';
export { agentDefinition } from './store/agent-links/agents.js';
export { LINK_MARKER } from './store/agent-links/link-writer.js';
export { HomeLayout } from './store/home.js';
export { hostStore, type HostStore } from './store/host-store.js';
export { storeOf } from './store/store-of.js';
export type { StoreCore } from './store/store-core.js';
export type { RunContext } from './run/context.js';
export type { InstalledView, PolicyView } from './store/store-view.js';
export type { DoctorContext } from './store/doctor.js';
export type { LinkStore } from './store/agent-links/records.js';
export type { PolicyHost } from './store/policy-enforce.js';
export { runToolIn, type InstalledRead, type RunInternals, type SettledListener } from './run/run-tool.js';
export { resumeWorkflowIn, runWorkflowIn } from './run/workflow.js';
export type { LocatedPackage } from './store/sources.js';
export { auditDigest } from './run/audit.js';
export { VARIABLE_NAME, envReadVariables, secretEnv } from './run/secrets.js';
export { validateInstalledWorkflows } from './run/workflow.js';
export { mcpServeIn, mcpToolName } from './run/mcp.js';
export {
  importMcpBundleAsOwn,
  inspectMcpBundle,
  type McpBundleSummary,
  type OwnImportedBundle,
  type ImportedBundle,
  type ImportMcpBundleOptions,
} from './run/mcpb-import.js';
export type { ImportInput } from './format/mcpb/bundle-manifest.js';
export { userConfigDir } from './add/own-key.js';

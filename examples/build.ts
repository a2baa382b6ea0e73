/**
 * `npm run examples`: builds every example capability from source into the bundled registry
 * with the SDK, the way a publisher and a registry operator would:
 *
 *   1. keys      examples/.keys/{root,arcotheon,acme}.key.json, generated on first use and reused
 *                after that (Ed25519 signatures are deterministic, so unchanged sources give
 *                byte-identical signed archives). The folder is gitignored: private keys never
 *                land in the repository.
 *   2. resources each resource's source under <example>/data/<resource id>/ is hashed; shard sets
 *                get their map built ({ shards: [{ path, sha256, size }], ...routing.json }). The
 *                pins in capability.json are checked (and, from the command line, updated).
 *   3. packages  every example, and every release listed in its releases.json, is built, signed
 *                by its publisher's key and published (publishing the same bytes again is a no-op;
 *                different bytes under a published version fail, as they must: spec §13).
 *   4. mirrors   resources and shards are copied into v1/blobs/sha256/<hex>, so hosts that
 *                installed from this registry find them with no network (spec §9 mirrors).
 *   5. status    yanks and deprecations from releases.json (spec §13 status files).
 *   6. catalogue signed with the root key; the sequence only grows, even across --clean.
 *   7. pin       examples/registry/embedded-remote.json: what a shipping build pins (root key,
 *                minSequence) for the embedded default remote (sdk/src/registry/embedded.ts).
 *
 * Usage: tsx examples/build.ts [--clean] [--check-pins] [--registry DIR] [--keys DIR]
 */
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcapError, isAdcapError } from '../sdk/src/errors.js';
import type { Resource } from '../sdk/src/format/manifest-types.js';
import { parseStrictJson } from '../sdk/src/format/strict-json.js';
import { buildRegistry } from '../sdk/src/registry/builder/build.js';
import { addPublisher, deprecateCapability, initRegistry, yankVersion } from '../sdk/src/registry/builder/maintain.js';
import { mirrorBlob } from '../sdk/src/registry/builder/mirror.js';
import { publishPackage } from '../sdk/src/registry/builder/publish.js';
import { readRegistryConfig, writeRegistryConfig } from '../sdk/src/registry/builder/source.js';
import { EMBEDDED_REMOTE_FILE } from '../sdk/src/registry/embedded.js';
import { generateKey, readKeyFile, writeKeyFile, type KeyFile } from '../sdk/src/trust/keys.js';
import { buildSignedPackage } from '../sdk/src/trust/package-signature.js';
import { hashFile } from '../sdk/src/util/hash.js';

export const EXAMPLES_DIR = dirname(fileURLToPath(import.meta.url));
export const REGISTRY_NAME = 'arcotheon-examples';
export const EMBEDDED_REMOTE_NAME = 'examples';

/** Publishers of the examples, with their display names. */
const PUBLISHERS: Record<string, string> = { arcotheon: 'Arcotheon', acme: 'Acme Tools' };

export interface BuildExamplesOptions {
  /** Where the example sources are (default: this folder). */
  examplesDir?: string;
  /** The registry tree to publish into (default: examples/registry). */
  registryDir?: string;
  /** Signing keys, created when missing (default: examples/.keys). */
  keysDir?: string;
  /** Built packages and generated resource files (default: examples/.build). */
  workDir?: string;
  /** Rewrite stale resource pins in the sources' capability.json instead of failing. */
  updatePins?: boolean;
  /** Start the registry over (keeps the sequence floor, so clients never see a rollback). */
  clean?: boolean;
  now?: Date;
  log?: (line: string) => void;
}

export interface BuiltExample {
  id: string;
  version: string;
  file: string;
  manifestSha256: string;
  archiveSha256: string;
  size: number;
  /** False when this exact archive was already published. */
  published: boolean;
}

export interface EmbeddedRemotePin {
  name: string;
  /** The registry's v1/ folder, relative to embedded-remote.json. */
  url: string;
  rootKeys: string[];
  minSequence: number;
  /** A local, bundled registry has no age limit (DESIGN §10); minSequence still stops rollback. */
  maxCatalogAgeMs: null;
}

export interface BuildExamplesResult {
  registryDir: string;
  packages: BuiltExample[];
  /** Resource and shard blobs mirrored into v1/blobs/sha256/. */
  mirrored: { sha256: string; size: number; what: string }[];
  sequence: number;
  embedded: EmbeddedRemotePin;
  embeddedFile: string;
}

/** One entry of an example's releases.json: versions published from the same source. */
interface Release {
  version: string;
  changelog?: string;
  yanked?: string;
}

interface ReleasesFile {
  releases: Release[];
  deprecated?: string;
}

/** A resource file (or shard) ready to mirror, with the pin it must match. */
interface ResourceFile {
  file: string;
  sha256: string;
  size: number;
  what: string;
}

export async function buildExamples(options: BuildExamplesOptions = {}): Promise<BuildExamplesResult> {
  const examplesDir = options.examplesDir ?? EXAMPLES_DIR;
  const registryDir = options.registryDir ?? join(examplesDir, 'registry');
  const keysDir = options.keysDir ?? join(examplesDir, '.keys');
  const workDir = options.workDir ?? join(examplesDir, '.build');
  const log = options.log ?? (() => undefined);

  const rootKey = await loadOrCreateKey(join(keysDir, 'root.key.json'), log);
  const publisherKeys = new Map<string, KeyFile>();
  for (const publisher of Object.keys(PUBLISHERS))
    publisherKeys.set(publisher, await loadOrCreateKey(join(keysDir, `${publisher}.key.json`), log));

  await prepareRegistry(registryDir, rootKey, options.clean === true, log);
  for (const [publisher, name] of Object.entries(PUBLISHERS)) {
    await addPublisher(registryDir, publisher, { publicKey: (publisherKeys.get(publisher) as KeyFile).publicKey, name });
  }

  await rm(workDir, { recursive: true, force: true });
  const packages: BuiltExample[] = [];
  const mirrored: BuildExamplesResult['mirrored'] = [];
  for (const sourceDir of await exampleDirs(examplesDir)) {
    const manifest = await readManifestSource(sourceDir);
    const publisher = manifest.id.split('/')[0] ?? '';
    const key = publisherKeys.get(publisher);
    if (key === undefined) {
      throw new AdcapError(
        'E_USAGE',
        `${relative(examplesDir, sourceDir)} is published by "${publisher}", which has no key here; ` +
          `use one of ${Object.keys(PUBLISHERS).join(', ')} or add it to PUBLISHERS in examples/build.ts.`,
      );
    }
    // 2. Resources first: the package pins them, so their pins must be current before it is built.
    const resourceFiles = await prepareResources(
      sourceDir,
      manifest,
      join(workDir, 'resources', manifest.id),
      options.updatePins === true,
      log,
    );
    // 3. Every release of this source, oldest first.
    const releases = await readReleases(sourceDir, manifest.version);
    for (const release of releases.releases) {
      const built = await buildRelease(sourceDir, release, manifest.version, join(workDir, 'packages'), join(workDir, 'src'), key);
      const published = await publishOrExplain(registryDir, built.file, `${manifest.id}@${release.version}`);
      packages.push({
        id: manifest.id,
        version: release.version,
        file: built.file,
        manifestSha256: built.manifestSha256,
        archiveSha256: built.archiveSha256,
        size: built.size,
        published,
      });
      log(`${published ? 'published' : 'unchanged'} ${manifest.id}@${release.version} (${built.size} bytes)`);
    }
    // 4. Mirrors, by content address.
    for (const resource of resourceFiles) {
      await mirrorBlob(registryDir, resource.file, { sha256: resource.sha256, size: resource.size });
      mirrored.push({ sha256: resource.sha256, size: resource.size, what: `${manifest.id} ${resource.what}` });
    }
    // 5. Status marks.
    for (const release of releases.releases) {
      if (release.yanked !== undefined) await yankVersion(registryDir, manifest.id, release.version, release.yanked);
    }
    if (releases.deprecated !== undefined) await deprecateCapability(registryDir, manifest.id, releases.deprecated);
  }

  // 6. The signed catalogue, then 7. the pin a shipping build embeds.
  // An unchanged registry keeps its catalogue: a home that pinned this build's minSequence must not
  // be told that the next, identical build is a step back (DESIGN §10).
  const built = await buildRegistry(registryDir, {
    rootKeys: [rootKey],
    keepUnchanged: true,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const embedded: EmbeddedRemotePin = {
    name: EMBEDDED_REMOTE_NAME,
    url: './v1/',
    rootKeys: [rootKey.publicKey],
    minSequence: built.sequence,
    maxCatalogAgeMs: null,
  };
  const embeddedFile = join(registryDir, EMBEDDED_REMOTE_FILE);
  await writeFile(embeddedFile, `${JSON.stringify(embedded, null, 2)}\n`);
  log(
    `catalogue sequence ${built.sequence}: ${built.capabilities} capabilities, ` +
      `${packages.length} packages, ${mirrored.length} resource blobs -> ${registryDir}`,
  );
  return { registryDir, packages, mirrored, sequence: built.sequence, embedded, embeddedFile };
}

async function loadOrCreateKey(path: string, log: (line: string) => void): Promise<KeyFile> {
  try {
    return await readKeyFile(path);
  } catch (error) {
    if (!(await missing(path))) throw error;
  }
  const key = generateKey();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeKeyFile(path, key);
  log(`generated ${path} (keep it private; it is gitignored)`);
  return key;
}

/**
 * Reuses the registry when its root key is ours; otherwise (or with --clean) starts it over.
 * Starting over keeps the highest sequence ever built, so homes that saw the old catalogue accept
 * the new one instead of reporting a rollback (DESIGN §10).
 */
async function prepareRegistry(registryDir: string, rootKey: KeyFile, clean: boolean, log: (line: string) => void): Promise<void> {
  let floor = 0;
  if (!(await missing(join(registryDir, 'registry.json')))) {
    const config = await readRegistryConfig(registryDir);
    const ours = config.rootKeys.some((k) => k.keyId === rootKey.keyId);
    if (ours && !clean) return;
    if (!ours)
      log(`${registryDir} was signed by another root key; starting it over (homes that pinned the old key must remove the remote)`);
    floor = ours ? Math.max(config.sequence, await catalogueSequence(registryDir)) : 0;
    await rm(registryDir, { recursive: true, force: true });
  }
  await initRegistry(registryDir, { name: REGISTRY_NAME, rootKeys: [rootKey] });
  if (floor > 0) await writeRegistryConfig(registryDir, { ...(await readRegistryConfig(registryDir)), sequence: floor });
}

async function catalogueSequence(registryDir: string): Promise<number> {
  try {
    const envelope = JSON.parse(await readFile(join(registryDir, 'v1', 'catalog.json'), 'utf8')) as { payload?: { sequence?: unknown } };
    return typeof envelope.payload?.sequence === 'number' ? envelope.payload.sequence : 0;
  } catch {
    return 0;
  }
}

/** Example source folders: every direct subfolder holding a capability.json, in name order. */
export async function exampleDirs(examplesDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(examplesDir)).sort()) {
    if (name.startsWith('.') || name === 'registry' || name === 'node_modules') continue;
    if (!(await missing(join(examplesDir, name, 'capability.json')))) out.push(join(examplesDir, name));
  }
  return out;
}

async function readManifestSource(
  sourceDir: string,
): Promise<Record<string, unknown> & { id: string; version: string; resources?: Resource[] }> {
  return parseStrictJson(await readFile(join(sourceDir, 'capability.json')), `${sourceDir}/capability.json`) as Record<string, unknown> & {
    id: string;
    version: string;
  };
}

async function readReleases(sourceDir: string, version: string): Promise<ReleasesFile> {
  const path = join(sourceDir, 'releases.json');
  if (await missing(path)) return { releases: [{ version }] };
  const value = parseStrictJson(await readFile(path), path) as Partial<ReleasesFile>;
  if (!Array.isArray(value.releases) || value.releases.length === 0 || !value.releases.every((r) => typeof r?.version === 'string')) {
    throw new AdcapError('E_USAGE', `${path} needs a non-empty "releases" array of { "version", "changelog"?, "yanked"? }.`);
  }
  return value as ReleasesFile;
}

/**
 * Builds one release. The source's own version builds straight from the source folder; an older
 * or newer release builds from a copy whose capability.json carries that version and changelog.
 */
async function buildRelease(sourceDir: string, release: Release, sourceVersion: string, outDir: string, stagingDir: string, key: KeyFile) {
  const manifest = await readManifestSource(sourceDir);
  const slug = manifest.id.replace('/', '-');
  let from = sourceDir;
  if (release.version !== sourceVersion || release.changelog !== undefined) {
    from = join(stagingDir, `${slug}-${release.version}`);
    await cp(sourceDir, from, { recursive: true, filter: (path) => !path.includes(`${sourceDir}/data`) });
    const patched = { ...manifest, version: release.version, ...(release.changelog === undefined ? {} : { changelog: release.changelog }) };
    await writeFile(join(from, 'capability.json'), `${JSON.stringify(patched, null, 2)}\n`);
  }
  await mkdir(outDir, { recursive: true });
  return buildSignedPackage(from, { out: join(outDir, `${slug}-${release.version}.adcap`), keys: [key] });
}

async function publishOrExplain(registryDir: string, file: string, label: string): Promise<boolean> {
  try {
    return (await publishPackage(registryDir, file)).created;
  } catch (error) {
    if (isAdcapError(error, 'E_IMMUTABLE')) {
      throw new AdcapError(
        'E_IMMUTABLE',
        `${label} is already in ${registryDir} with other content: published versions are immutable. ` +
          'Give the changed example a new version (releases.json or capability.json), ' +
          'or rebuild everything with "npm run examples -- --clean".',
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * Hashes the source of every resource under <example>/data/<resource id>/ and checks the pins in
 * capability.json. A `file` resource is the single file in that folder; a `shardset` resource is
 * the map built from shards/ (each shard pinned by the map) plus routing.json's fields.
 */
async function prepareResources(
  sourceDir: string,
  manifest: { id: string; resources?: Resource[] },
  outDir: string,
  updatePins: boolean,
  log: (line: string) => void,
): Promise<ResourceFile[]> {
  const files: ResourceFile[] = [];
  for (const resource of manifest.resources ?? []) {
    const dataDir = join(sourceDir, 'data', resource.id);
    if (await missing(dataDir)) {
      throw new AdcapError(
        'E_NOT_FOUND',
        `${manifest.id} declares the resource "${resource.id}" but ${dataDir} does not exist; put the resource's source files there.`,
      );
    }
    let main: ResourceFile;
    if (resource.format === 'shardset') {
      const shardsDir = join(dataDir, 'shards');
      const shards: { path: string; sha256: string; size: number }[] = [];
      for (const name of (await readdir(shardsDir)).sort()) {
        const file = join(shardsDir, name);
        const { sha256, size } = await hashFile(file);
        shards.push({ path: `shards/${name}`, sha256, size });
        files.push({ file, sha256, size, what: `shard ${resource.id}/shards/${name}` });
      }
      const routingFile = join(dataDir, 'routing.json');
      const routing = (await missing(routingFile)) ? {} : (JSON.parse(await readFile(routingFile, 'utf8')) as Record<string, unknown>);
      const mapFile = join(outDir, `${resource.id}.map.json`);
      await mkdir(outDir, { recursive: true });
      // spec §9: the map lists every shard with its pin; extra fields (routing) are for the tool.
      await writeFile(mapFile, `${JSON.stringify({ shards, ...routing })}\n`);
      main = { file: mapFile, ...(await hashFile(mapFile)), what: `shard map ${resource.id}` };
    } else {
      const names = (await readdir(dataDir)).filter((n) => !n.startsWith('.'));
      if (names.length !== 1)
        throw new AdcapError(
          'E_USAGE',
          `${dataDir} must hold exactly one file, the content of resource "${resource.id}"; it holds ${names.length}.`,
        );
      const file = join(dataDir, names[0] as string);
      main = { file, ...(await hashFile(file)), what: `resource ${resource.id}` };
    }
    files.unshift(main);
    if (resource.sha256 !== main.sha256 || resource.size !== main.size) {
      if (!updatePins) {
        throw new AdcapError(
          'E_HASH',
          `The pin of resource "${resource.id}" in ${sourceDir}/capability.json is stale: ` +
            `the resource now has sha256 ${main.sha256} and size ${main.size}. ` +
            'Run "npm run examples" to update the pin, or edit it by hand.',
        );
      }
      await updatePin(join(sourceDir, 'capability.json'), resource.id, main.sha256, main.size);
      log(`updated the pin of resource "${resource.id}" in ${relative(process.cwd(), sourceDir)}/capability.json`);
    }
  }
  return files;
}

/** Rewrites the sha256 and size that follow `"id": "<resource id>"` in capability.json, keeping its layout. */
async function updatePin(manifestFile: string, resourceId: string, sha256: string, size: number): Promise<void> {
  const text = await readFile(manifestFile, 'utf8');
  const resourcesAt = text.indexOf('"resources"');
  const idAt = text.indexOf(`"id": "${resourceId}"`, resourcesAt);
  if (resourcesAt < 0 || idAt < 0)
    throw new AdcapError(
      'E_USAGE',
      `Cannot find resource "${resourceId}" in ${manifestFile} to update its pin; edit sha256 and size by hand.`,
    );
  const end = text.indexOf('}', idAt);
  const block = text
    .slice(idAt, end)
    .replace(/"sha256": "[0-9a-f]{64}"/, `"sha256": "${sha256}"`)
    .replace(/"size": \d+/, `"size": ${size}`);
  await writeFile(manifestFile, text.slice(0, idAt) + block + text.slice(end));
}

async function missing(path: string): Promise<boolean> {
  return stat(path).then(
    () => false,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return true;
      throw error;
    },
  );
}

function parseArgs(argv: string[]): BuildExamplesOptions {
  const options: BuildExamplesOptions = { updatePins: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--clean') options.clean = true;
    else if (arg === '--check-pins') options.updatePins = false;
    else if (arg === '--registry' || arg === '--keys') {
      const value = argv[++i];
      if (value === undefined) throw new AdcapError('E_USAGE', `${arg} needs a directory.`);
      if (arg === '--registry') options.registryDir = resolve(value);
      else options.keysDir = resolve(value);
    } else {
      throw new AdcapError('E_USAGE', `Unknown option ${arg}; use --clean, --check-pins, --registry DIR or --keys DIR.`);
    }
  }
  return options;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    await buildExamples({ ...parseArgs(process.argv.slice(2)), log: (line) => console.log(line) });
    console.log(`examples built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    const code = isAdcapError(error) ? error.code : 'E_IO';
    console.error(`error ${code}: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

/**
 * The embedded default remote (DESIGN §10): the example registry built by
 * `npm run examples` ships with the SDK, so a fresh home with no remote configured starts on it
 * with no network. The build writes `embedded-remote.json` next to the registry's v1/ folder:
 *
 *   { "name": "examples", "url": "./v1/", "rootKeys": ["<base64>"], "minSequence": 7, "maxCatalogAgeMs": null }
 *
 * `url` is relative to that file. Where the file is looked for, in order:
 *   1. `ARCOTHEON_EMBEDDED_REGISTRY`: the path of an embedded-remote.json, or of the registry folder
 *      holding one (a packaged app points it at its resources folder); set but empty disables it;
 *   2. the registry shipped with the SDK (shippedRegistryFile()): the published
 *      package carries it as `<sdk>/registry/` (copied there by `prepack`); a repository checkout
 *      has it at `<sdk>/../examples/registry/`.
 * The pin (root keys, minSequence) comes from the build that produced the registry, so a tampered
 * or rolled-back catalogue in that folder is refused like any other.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AdcapError } from '../errors.js';
import { parseStrictJson } from '../format/strict-json.js';
import { checkRemoteConfig, type RemoteConfig } from './remotes.js';

export const EMBEDDED_REGISTRY_ENV = 'ARCOTHEON_EMBEDDED_REGISTRY';
export const EMBEDDED_REMOTE_FILE = 'embedded-remote.json';

/** The SDK package folder, from sdk/src/registry or sdk/dist/registry. */
function sdkPackageDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/**
 * The pin of the registry shipped with the SDK: `<sdk>/registry/embedded-remote.json` in the
 * published package (prepack copies the built example registry there), else
 * `<sdk>/../examples/registry/embedded-remote.json` in a repository checkout.
 */
function bundledEmbeddedRemoteFile(): string {
  const packaged = join(sdkPackageDir(), 'registry', EMBEDDED_REMOTE_FILE);
  if (existsSync(packaged)) return packaged;
  return join(sdkPackageDir(), '..', 'examples', 'registry', EMBEDDED_REMOTE_FILE);
}

let shipped: { remote: RemoteConfig | null } | undefined;

/**
 * The registry the SDK ships, read once and synchronously (the Arcotheon
 * constructor and ARCOTHEON_ROOT_KEYS need it). Null when this copy of the SDK carries none (a
 * checkout where `npm run examples` has not run) or its pin cannot be read.
 */
export function shippedRemote(): RemoteConfig | null {
  if (shipped === undefined) {
    const file = bundledEmbeddedRemoteFile();
    let remote: RemoteConfig | null;
    try {
      remote = parseEmbeddedRemote(readFileSync(file), file);
    } catch {
      remote = null;
    }
    shipped = { remote };
  }
  return shipped.remote === null ? null : { ...shipped.remote, rootKeys: [...shipped.remote.rootKeys] };
}

/**
 * Loads the embedded remote, or null when there is none (an SDK installed without the examples, or
 * the variable set to ""). A variable that names a missing or broken file is an error, because the
 * host asked for that registry explicitly.
 */
export async function loadEmbeddedRemote(env: Readonly<Record<string, string | undefined>> = process.env): Promise<RemoteConfig | null> {
  const fromEnv = env[EMBEDDED_REGISTRY_ENV];
  if (fromEnv === '') return null;
  if (fromEnv !== undefined) {
    const file = (await isDirectory(fromEnv)) ? join(fromEnv, EMBEDDED_REMOTE_FILE) : resolve(fromEnv);
    const remote = await readEmbeddedRemote(file);
    if (remote === null) {
      throw new AdcapError(
        'E_NOT_FOUND',
        `${EMBEDDED_REGISTRY_ENV} names ${file}, which does not exist; ` +
          'point it at an embedded-remote.json written by "npm run examples", or unset it.',
      );
    }
    return remote;
  }
  return readEmbeddedRemote(bundledEmbeddedRemoteFile());
}

/** Reads one embedded-remote.json; null when the file does not exist. */
export async function readEmbeddedRemote(file: string): Promise<RemoteConfig | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new AdcapError('E_IO', `Cannot read the embedded registry pin ${file}: ${(error as Error).message}.`, { cause: error });
  }
  return parseEmbeddedRemote(bytes, file);
}

/** Parses the bytes of an embedded-remote.json found at `file` (relative urls resolve against it). */
function parseEmbeddedRemote(bytes: Buffer, file: string): RemoteConfig {
  let value: unknown;
  try {
    value = parseStrictJson(bytes, file);
  } catch (cause) {
    throw new AdcapError('E_USAGE', `The embedded registry pin ${file} is not valid JSON; rebuild it with "npm run examples".`, { cause });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AdcapError('E_USAGE', `The embedded registry pin ${file} is not a JSON object; rebuild it with "npm run examples".`);
  }
  const record = value as Record<string, unknown>;
  const url = record['url'];
  if (typeof url !== 'string' || url === '') {
    throw new AdcapError('E_USAGE', `The embedded registry pin ${file} has no "url"; rebuild it with "npm run examples".`);
  }
  // A relative url names the v1/ folder relative to the pin file; absolute URLs are kept.
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `${pathToFileURL(resolve(dirname(file), url)).href}/`;
  return checkRemoteConfig({ ...record, url: absolute }, `The embedded registry pin ${file}`);
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/**
 * The embedded default remote (issue 7, DESIGN §10): the example registry built by
 * `npm run examples` ships beside the SDK, so a fresh home with no remote configured starts on it
 * with no network. The build writes `embedded-remote.json` next to the registry's v1/ folder:
 *
 *   { "name": "examples", "url": "./v1/", "rootKeys": ["<base64>"], "minSequence": 7, "maxCatalogAgeMs": null }
 *
 * `url` is relative to that file. Where the file is looked for, in order:
 *   1. `ARCOTHEON_EMBEDDED_REGISTRY`: the path of an embedded-remote.json, or of the registry folder
 *      holding one (a packaged app points it at its resources folder); set but empty disables it;
 *   2. the registry bundled beside the SDK: `<sdk>/../examples/registry/embedded-remote.json`,
 *      resolved from this module's own location (the same from sdk/src and sdk/dist).
 * The pin (root keys, minSequence) comes from the build that produced the registry, so a tampered
 * or rolled-back catalogue in that folder is refused like any other.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AdcapError } from '../errors.js';
import { parseStrictJson } from '../format/strict-json.js';
import { checkRemoteConfig, type RemoteConfig } from './remotes.js';

export const EMBEDDED_REGISTRY_ENV = 'ARCOTHEON_EMBEDDED_REGISTRY';
export const EMBEDDED_REMOTE_FILE = 'embedded-remote.json';

/** `<sdk>/../examples/registry/embedded-remote.json`, from sdk/src/registry or sdk/dist/registry. */
export function bundledEmbeddedRemoteFile(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'registry', EMBEDDED_REMOTE_FILE);
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
      throw new AdcapError('E_NOT_FOUND', `${EMBEDDED_REGISTRY_ENV} names ${file}, which does not exist; point it at an embedded-remote.json written by "npm run examples", or unset it.`);
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

import { readFileSync } from 'node:fs';

let version: string | undefined;

/**
 * The SDK's version, from sdk/package.json (../../package.json from both src/util and dist/util),
 * read once per process. Read as data, not loaded with require(): the layer rules see only imports
 * (eslint.config.js).
 */
export function sdkPackageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}

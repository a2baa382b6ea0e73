/**
 * The Node.js version check of the `adcap` bin. The SDK needs Node 22.12 or
 * newer (package.json "engines"); an older Node gets one clear line instead of a stack trace from
 * deep inside a dependency. This module imports nothing and uses only syntax every Node that can
 * load an ES module parses, because it runs before anything that needs a newer Node is loaded.
 * build/check-node.cjs is the same check for `npm install` in this repository.
 */

export const MINIMUM_NODE = '22.12.0';

/** Whether `version` ("22.12.0", "v20.1.0", "23.0.0-pre") is at least `minimum`, by major, minor, patch. */
export function nodeVersionAtLeast(version: string, minimum: string = MINIMUM_NODE): boolean {
  const parse = (text: string): number[] =>
    text
      .replace(/^v/, '')
      .split(/[.-]/)
      .slice(0, 3)
      .map((part) => parseInt(part, 10) || 0);
  const have = parse(version);
  const need = parse(minimum);
  for (let i = 0; i < 3; i++) {
    const a = have[i] || 0;
    const b = need[i] || 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The one error line for a Node older than the minimum, or null when `version` is new enough. */
export function nodeVersionProblem(version: string): string | null {
  if (nodeVersionAtLeast(version)) return null;
  const shown = version.replace(/^v/, '');
  return (
    'error E_RUNTIME_UNSUPPORTED: adcap needs Node.js ' +
    `${MINIMUM_NODE.replace(/\.0$/, '')} or newer and this is Node.js ${shown}; ` +
    'get Node.js 22 (npm install -g --prefix ~/node22 node@22, then put ~/node22/bin first on PATH) and run adcap again.'
  );
}

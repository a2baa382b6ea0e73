// Node older than 22.12 is refused by the adcap bin (sdk/src/cli/node-check.ts)
// and by `npm install` in the repository (build/check-node.cjs); both agree on every version.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE, nodeVersionAtLeast, nodeVersionProblem } from '../../../sdk/src/cli/node-check.js';

const CHECK_NODE = join(import.meta.dirname, '..', '..', '..', 'build', 'check-node.cjs');

const TABLE: Array<[string, boolean]> = [
  ['22.12.0', true],
  ['v22.12.0', true],
  ['22.12.1', true],
  ['22.20.0', true],
  ['23.0.0', true],
  ['24.11.1', true],
  ['100.0.0', true],
  ['22.12.0-nightly20241201', true],
  ['22.11.9', false],
  ['22.9.0', false],
  ['v20.20.2', false],
  ['18.20.8', false],
  ['0.10.48', false],
];

describe('the Node version check', () => {
  it('compares major, minor and patch numerically', () => {
    expect(MINIMUM_NODE).toBe('22.12.0');
    for (const [version, ok] of TABLE) expect(nodeVersionAtLeast(version), version).toBe(ok);
    expect(nodeVersionAtLeast(process.versions.node)).toBe(true);
  });

  it('gives one line naming both versions for an old Node, and nothing for a new one', () => {
    expect(nodeVersionProblem('22.12.0')).toBeNull();
    expect(nodeVersionProblem('v20.20.2')).toBe(
      'error E_RUNTIME_UNSUPPORTED: adcap needs Node.js 22.12 or newer and this is Node.js 20.20.2; ' +
        'get Node.js 22 (npm install -g --prefix ~/node22 node@22, then put ~/node22/bin first on PATH) and run adcap again.',
    );
    for (const [version, ok] of TABLE) {
      const problem = nodeVersionProblem(version);
      expect(problem === null, version).toBe(ok);
      if (problem !== null) expect(problem.split('\n'), version).toHaveLength(1);
    }
  });

  it('build/check-node.cjs (the root preinstall script) makes the same decision with one line on stderr', () => {
    for (const [version, ok] of TABLE) {
      const run = spawnSync(process.execPath, [CHECK_NODE, version], { encoding: 'utf8' });
      expect([version, run.status], run.stderr).toEqual([version, ok ? 0 : 1]);
      if (ok) expect(run.stderr).toBe('');
      else
        expect(run.stderr).toBe(
          'error: Arcotheon needs Node.js 22.12 or newer ' +
            `and this is Node.js ${version.replace(/^v/, '')}; ` +
            'get Node.js 22 (npm install -g --prefix ~/node22 node@22, then put ~/node22/bin first on PATH) and run npm install again.\n',
        );
    }
  });
});

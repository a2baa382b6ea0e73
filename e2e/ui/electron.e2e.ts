/**
 * The UI journeys in the desktop window: e2e/ui/journeys.e2e.ts again, its page in the
 * Electron window through Playwright's `_electron`, when ARCOTHEON_ELECTRON_PATH names an Electron
 * binary. Without one (CI here: the binary cannot be downloaded) this says clearly that they were
 * not run.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journeysElectron } from './helpers/electron.js';

const repo = join(import.meta.dirname, '..', '..');

describe('the UI journeys under Electron', () => {
  it(
    'run in the desktop window when ARCOTHEON_ELECTRON_PATH names a binary',
    async () => {
      const binary = await journeysElectron();
      if (binary.path === null) {
        console.log(
          `\n==> The UI journeys were NOT run under Electron: ${binary.reason}.\n` +
            '    Set ARCOTHEON_ELECTRON_PATH to an Electron binary ' +
            'to run e2e/ui/journeys.e2e.ts in the desktop window.\n',
        );
        expect(binary.reason).toMatch(/ARCOTHEON_ELECTRON_PATH/);
        return;
      }
      console.log(`\n==> Running the UI journeys in the Electron window (${binary.path}).\n`);
      const run = spawnSync(
        process.execPath,
        [join(repo, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'e2e', 'e2e/ui/journeys.e2e.ts'],
        {
          cwd: repo,
          // The journeys in the Electron window, which runs only where an Electron binary exists.
          env: { ...process.env, ARCOTHEON_UI_TARGET: 'electron' },
          stdio: 'inherit',
          timeout: 20 * 60_000,
        },
      );
      expect(run.status).toBe(0);
    },
    21 * 60_000,
  );
});

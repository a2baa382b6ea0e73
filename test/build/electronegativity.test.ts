// build/electronegativity.mjs, the scanner `npm test` runs over electron/: it must fail on a
// finding (here a window with Node integration and no context isolation), and run offline.
import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../build/electronegativity.mjs', import.meta.url));

describe('the electronegativity check', () => {
  it('fails with the finding named when a window is insecure', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-eng-'));
    await writeFile(
      join(dir, 'main.ts'),
      "import { BrowserWindow } from 'electron';\nexport const win = new BrowserWindow({ " +
        'webPreferences: { nodeIntegration: true, contextIsolation: false, sandbox: false } });\n',
    );
    const run = spawnSync(process.execPath, [script, dir], { encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('SANDBOX_JS_CHECK');
    expect(run.stderr).toContain('CONTEXT_ISOLATION_JS_CHECK');
    expect(run.stdout).toMatch(/electronegativity: \d+ checks over .*, [1-9]\d* finding\(s\), 0 parse error\(s\)/);
    // Offline: the translation and release downloads are never attempted.
    expect(run.stdout + run.stderr).not.toMatch(/translations|Fetching Electron/);
  });
});

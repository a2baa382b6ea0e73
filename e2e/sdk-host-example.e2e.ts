import { spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * sdk/README.md promises a runnable host example (issue 4). This runs it as a user would, against
 * the built SDK and the bundled example registry, and checks each step of the host contract.
 */
describe('sdk/examples/host.mjs', () => {
  it('runs the whole host contract offline: discover, approve, install, skills, tool, workflow, update, doctor, audit', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-host-example-'));
    const result = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'sdk', 'examples', 'host.mjs'), home], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(result.status, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/search "csv": acme\/csv-summary@/);
    expect(out).toMatch(/new permission: Read files in the folder you choose/);
    expect(out).toMatch(/installed: arcotheon\/workspace-stats@1\.2\.0, acme\/csv-summary@1\.0\.0, acme\/data-report@1\.0\.0/);
    expect(out).toMatch(/skill for the agent: .*skills\/workspace-stats/);
    expect(out).toMatch(/find_todos \(bubblewrap, \d+ ms\): .*"tag":"TODO".*"tag":"FIXME"/);
    expect(out).toMatch(/workflow stopped for the agent at "report"/);
    expect(out).toMatch(/doctor: ok/);
    expect(out).toMatch(/audit log: 4 lines, chain intact/);
    expect(out).toMatch(/refused as expected: E_INPUT: /);
  });
});

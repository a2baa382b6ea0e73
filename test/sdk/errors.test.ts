// Typed details per code (DESIGN §9): isAdcapError(e, code) narrows `details` to that code's
// shape, here on a real refusal (E_NOT_GRANTED from a real tool run after its grant was revoked),
// and progress phases are one of PROGRESS_PHASES on a real install.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAdcapError, type ErrorDetails } from '../../sdk/src/errors.js';
import { runTool } from '../../sdk/src/run/run-tool.js';
import { PROGRESS_PHASES, type ProgressPhase } from '../../sdk/src/util/progress.js';
import { nodeTool, RunHome } from './run/run-fixture.js';

let h: RunHome;
beforeAll(async () => {
  h = await RunHome.create();
});
afterAll(async () => {
  await h.remove();
});

describe('typed error details and progress phases', () => {
  it('E_NOT_GRANTED narrows to details.missing; every phase heard is one of PROGRESS_PHASES', async () => {
    const arc = h.arc({ remotes: [] });
    const phases = new Set<ProgressPhase>();
    const file = await h.build({
      id: 'acme/typed',
      tools: [nodeTool('echo', 'echo.mjs', { permissions: ['fs:read:workspace'] })],
      permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads your files.' }],
      files: { 'tools/echo.mjs': 'echo.mjs' },
    });
    await arc.install({ file }, { approve: () => true, allowUnsigned: true, onProgress: (p) => phases.add(p.phase) });
    await arc.revokeGrant('acme/typed', 'fs:read:workspace');
    let missing: readonly string[] | undefined;
    try {
      await runTool(arc, 'acme/typed', 'echo', {}, { onProgress: (p) => phases.add(p.phase) });
    } catch (error) {
      if (!isAdcapError(error, 'E_NOT_GRANTED')) throw error;
      const details: ErrorDetails<'E_NOT_GRANTED'> = error.details;
      missing = details.missing;
    }
    expect(missing).toEqual(['fs:read:workspace']);
    expect(phases.size).toBeGreaterThan(0);
    for (const phase of phases) expect(PROGRESS_PHASES).toContain(phase);
  });
});

// Tool runs (host contract "Sandbox expectations", "Free and Pro"): a host
// sandbox written from the documentation alone (a name and wrap(spec) → { command, args, env,
// cleanup? }) runs tools with exactly the environment it returns; what it returns is checked;
// optOut runs the host's own capabilities unsandboxed; host callbacks that fail, and cancelled
// runs, have their own codes. Real tools, real child processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import type { Sandbox, SandboxSpec } from '../../../sdk/src/sandbox/sandbox.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';

/** A tool that answers with its environment and stays alive when asked to (for cancellation). */
const ENV_TOOL = `import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) {
  const call = JSON.parse(line);
  if (call.input.wait === true) await new Promise((r) => setTimeout(r, 60_000));
  process.stdout.write(JSON.stringify({ type: 'result', output: { env: process.env } }) + '\\n');
  break;
}
`;

let h: RunHome;
const SECRET = 'ARCOTHEON_TEST_HOST_SECRET';

beforeAll(async () => {
  h = await RunHome.create();
  process.env[SECRET] = 'must-never-reach-a-tool';
});
afterAll(async () => {
  delete process.env[SECRET];
  await h.remove();
});

const envTool = { tools: [nodeTool('env', 'env.mjs')], files: { 'tools/env.mjs': { text: ENV_TOOL } } };

/** The sandbox a host writes from the contract: runs the command as is, with the environment it builds. */
function hostSandbox(calls: SandboxSpec[], cleanups: string[]): Sandbox {
  return {
    name: 'host-jail',
    wrap(spec) {
      calls.push(spec);
      return {
        command: spec.command,
        args: spec.args,
        env: { PATH: '/usr/bin:/bin', HOST_JAIL: 'yes' },
        cleanup: () => void cleanups.push('done'),
      };
    },
  };
}

describe('a host sandbox written from the contract', () => {
  it('runs the tool with exactly the environment wrap() returned, never the host process environment', async () => {
    const calls: SandboxSpec[] = [];
    const cleanups: string[] = [];
    const arc = h.arc({ remotes: [], sandbox: { use: hostSandbox(calls, cleanups) } });
    await h.install({ id: 'acme/envjail', ...envTool }, arc);
    const result = await runTool(arc, 'acme/envjail', 'env', {});
    expect(result.sandbox).toBe('host-jail');
    expect(result.output['env']).toEqual({ PATH: '/usr/bin:/bin', HOST_JAIL: 'yes' });
    expect(JSON.stringify(result.output)).not.toContain('must-never-reach-a-tool');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.grants).toEqual([]);
    expect(cleanups).toEqual(['done']);
  });

  it.each([
    ['no environment', { command: process.execPath, args: [] }, /"env" must be the complete environment/],
    ['no command', { args: [], env: {} }, /"command" must be a non-empty string/],
    ['arguments that are not strings', { command: process.execPath, args: [1], env: {} }, /"args" must be an array of strings/],
    ['an environment value that is not a string', { command: process.execPath, args: [], env: { A: 1 } }, /"env" has an entry "A"/],
    ['nothing at all', undefined, /must return \{ command, args, env, cleanup\? \}/],
  ])('refuses a wrap() result with %s (E_HOST_CALLBACK), starting nothing', async (_label, returned, message) => {
    const arc = h.arc({ remotes: [], sandbox: { use: { name: 'sloppy', wrap: () => returned as never } } });
    await h.install({ id: 'acme/sloppy', ...envTool }, arc);
    const error = await rejectionOf(runTool(arc, 'acme/sloppy', 'env', {}));
    expect(error.code).toBe('E_HOST_CALLBACK');
    expect(error.message).toMatch(message);
    expect(error.details).toMatchObject({ callback: 'sandbox.wrap', sandbox: 'sloppy' });
  });

  it('reports a wrap() or available() that throws as E_HOST_CALLBACK with the cause kept', async () => {
    const boom = new Error('jail is down');
    const arc = h.arc({
      remotes: [],
      sandbox: {
        use: {
          name: 'thrower',
          wrap: () => {
            throw boom;
          },
        },
      },
    });
    await h.install({ id: 'acme/thrown', ...envTool }, arc);
    const error = await rejectionOf(runTool(arc, 'acme/thrown', 'env', {}));
    expect(error).toMatchObject({ code: 'E_HOST_CALLBACK', cause: boom });
    expect(error.message).toContain('jail is down');
    const unsure = h.arc({
      remotes: [],
      sandbox: {
        use: {
          name: 'unsure',
          available: () => {
            throw new Error('probe failed');
          },
          wrap: () => ({ command: 'x', args: [], env: {} }),
        },
      },
    });
    expect((await rejectionOf(runTool(unsure, 'acme/thrown', 'env', {}))).code).toBe('E_HOST_CALLBACK');
  });
});

/** A tool that keeps a note in its HOME, as many programs do (dot files, caches). */
const HOME_TOOL = `import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) {
  const file = join(process.env.HOME, '.note');
  writeFileSync(file, 'kept in HOME');
  process.stdout.write(JSON.stringify({ type: 'result', output: { home: process.env.HOME, note: readFileSync(file, 'utf8') } }) + '\\n');
  break;
}
`;

describe('spec.tmpDir (sdk/README.md "Sandbox hook")', () => {
  it('exists when wrap() is called, so the README example (HOME: spec.tmpDir) runs a tool that writes to HOME', async () => {
    const seen: { tmpDir: string; existed: boolean }[] = [];
    const { existsSync, statSync } = await import('node:fs');
    const readmeJail: Sandbox = {
      name: 'readme-jail',
      wrap(spec) {
        seen.push({ tmpDir: spec.tmpDir, existed: existsSync(spec.tmpDir) && statSync(spec.tmpDir).isDirectory() });
        return { command: spec.command, args: spec.args, env: { PATH: '/usr/bin:/bin', HOME: spec.tmpDir }, cwd: spec.cwd };
      },
    };
    const arc = h.arc({ remotes: [], sandbox: { use: readmeJail } });
    await h.install({ id: 'acme/homenote', tools: [nodeTool('note', 'note.mjs')], files: { 'tools/note.mjs': { text: HOME_TOOL } } }, arc);
    const result = await runTool(arc, 'acme/homenote', 'note', {});
    expect(seen).toEqual([{ tmpDir: expect.any(String), existed: true }]);
    expect(result.output).toEqual({ home: seen[0]?.tmpDir, note: 'kept in HOME' });
    // The folder is the run's own: removed once the run is over.
    expect(existsSync(seen[0]?.tmpDir ?? '')).toBe(false);
  });

  it('is the system temporary folder, with no run folder made, for a sandbox whose needsTmpDir is false', async () => {
    const { tmpdir } = await import('node:os');
    const seen: string[] = [];
    const noFiles: Sandbox = {
      name: 'no-files-jail',
      needsTmpDir: false,
      wrap(spec) {
        // A run folder would be <tmp>/adcap-run-XXXXXX/sandbox: the temporary folder itself means none was made.
        seen.push(spec.tmpDir);
        return { command: spec.command, args: spec.args, env: { PATH: '/usr/bin:/bin' }, cwd: spec.cwd };
      },
    };
    const arc = h.arc({ remotes: [], sandbox: { use: noFiles } });
    await h.install({ id: 'acme/nofiles', ...envTool }, arc);
    const result = await runTool(arc, 'acme/nofiles', 'env', {});
    expect(result.sandbox).toBe('no-files-jail');
    expect(seen).toEqual([tmpdir()]);
  });
});

describe('optOut (capabilities the host ships itself)', () => {
  it('runs them without a sandbox even where one works, and sandboxes everything else', async () => {
    const arc = h.arc({ remotes: [], sandbox: { optOut: ['acme/own'] } });
    await h.install({ id: 'acme/own', ...envTool }, arc);
    await h.install({ id: 'acme/thirdparty', ...envTool }, arc);
    expect((await runTool(arc, 'acme/own', 'env', {})).sandbox).toBe('none');
    expect((await runTool(arc, 'acme/thirdparty', 'env', {})).sandbox).toBe('bubblewrap');
    const byPredicate = h.arc({ remotes: [], sandbox: { optOut: (id) => id === 'acme/thirdparty' } });
    expect((await runTool(byPredicate, 'acme/thirdparty', 'env', {})).sandbox).toBe('none');
    // Even unsandboxed, the tool gets the minimal environment (DESIGN §5), not the host's.
    expect(JSON.stringify((await runTool(arc, 'acme/own', 'env', {})).output)).not.toContain('must-never-reach-a-tool');
  });
});

describe('host callbacks and cancellation in runTool', () => {
  it('a checkTier that throws, or answers something other than a boolean, is E_HOST_CALLBACK', async () => {
    const throwing = h.arc({
      remotes: [],
      checkTier: () => {
        throw new Error('entitlement service down');
      },
    });
    await h.install({ id: 'acme/tiered', ...envTool }, throwing);
    expect(await rejectionOf(runTool(throwing, 'acme/tiered', 'env', {}))).toMatchObject({
      code: 'E_HOST_CALLBACK',
      details: { callback: 'checkTier' },
    });
    const vague = h.arc({ remotes: [], checkTier: (() => undefined) as never });
    expect(await rejectionOf(runTool(vague, 'acme/tiered', 'env', {}))).toMatchObject({
      code: 'E_HOST_CALLBACK',
      details: { callback: 'checkTier' },
    });
    const asynchronous = h.arc({ remotes: [], checkTier: () => Promise.resolve(true) });
    expect((await runTool(asynchronous, 'acme/tiered', 'env', {})).sandbox).toBe('bubblewrap');
  });

  it('a throwing onProgress is E_HOST_CALLBACK, not a tool failure', async () => {
    const arc = h.arc({ remotes: [] });
    await h.install({ id: 'acme/progress', ...envTool }, arc);
    const error = await rejectionOf(
      runTool(
        arc,
        'acme/progress',
        'env',
        {},
        {
          onProgress: () => {
            throw new Error('UI gone');
          },
        },
      ),
    );
    expect(error).toMatchObject({ code: 'E_HOST_CALLBACK', details: { callback: 'onProgress' } });
  });

  it('a cancelled run is E_CANCELLED (never E_DENIED), before it starts and while it runs', async () => {
    const arc = h.arc({ remotes: [] });
    await h.install({ id: 'acme/cancel', ...envTool }, arc);
    expect((await rejectionOf(runTool(arc, 'acme/cancel', 'env', {}, { signal: AbortSignal.abort() }))).code).toBe('E_CANCELLED');
    const controller = new AbortController();
    const running = runTool(
      arc,
      'acme/cancel',
      'env',
      { wait: true },
      {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.phase === 'run') controller.abort();
        },
      },
    );
    const error = await rejectionOf(running);
    expect(error.code).toBe('E_CANCELLED');
  });
});

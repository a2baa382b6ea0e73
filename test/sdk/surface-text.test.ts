// Messages fit the person reading them (DESIGN §9, surface-text.ts): the `adcap` command's text names
// commands and flags, the manager UI's names buttons and screens, and neither names an SDK call; UI
// text never names a terminal command. Every entry of the table is rendered for every surface, the
// UI's own next steps are read too, and real failures are driven through the CLI and the host
// service the UI talks to.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHostService } from '../../electron/host/service.js';
import { readFile } from 'node:fs/promises';
import { ERROR_CODES } from '../../sdk/src/errors.js';
import { runTool } from '../../sdk/src/run/run-tool.js';
import { Arcotheon } from '../../sdk/src/store/arcotheon.js';
import { renderAllReasons, type ErrorReason } from '../../sdk/src/surface-text.js';
import type { Result } from '../../electron/common/types.js';
import type { HostService } from '../../electron/host/service.js';
import { adcap } from './cli/run-cli.js';

/** An operation's own Result: long methods answer { operation } at once, operations.wait the outcome. */
async function outcome(host: HostService, started: Result<unknown>): Promise<Result<unknown>> {
  if (!started.ok) return started;
  return host.dispatch('operations.wait', [(started.value as { operation: string }).operation]);
}

/** What only a developer calling the SDK knows: API calls, option names, callbacks, the contract. */
const SDK_IDENTIFIER = /\barc\.\w|\b[a-z]+[A-Z]\w*\s*[:(]|\ballowUnsigned\b|\bauthorize callback\b|\bhost contract\b|\w\(\)/;
/** What only a terminal user can do: a command, a flag. */
const TERMINAL_COMMAND = /\badcap\b|\bnpm (run|install|start|test)\b|\bnpx\b|(^|[\s"'(])--[a-z]/;

const SAMPLE: Record<string, unknown> = {
  id: 'acme/csv-summary',
  version: '1.0.0',
  what: 'The entry tools/summarize_csv.py of the tool summarize_csv',
  packages: 'local/notes@0.1.0',
  trust: 'not signed',
  remote: 'examples',
  path: 'projects/notes',
  tool: 'acme/csv-summary summarize_csv',
  toolMessage: 'the file is empty',
  exitCode: 3,
  signal: null,
  lastError: 'Traceback (most recent call last): ...',
  dependency: 'acme/lib',
};

describe('the surface table', () => {
  const rendered = renderAllReasons((_reason: ErrorReason) => SAMPLE);

  it('has a sentence for every surface of every cause', () => {
    for (const { reason, surface, text } of rendered) {
      expect(text.length, `${reason} ${surface}`).toBeGreaterThan(20);
      expect(text, `${reason} ${surface}`).not.toMatch(/undefined|\[object/);
    }
  });

  it('CLI and UI text names no SDK identifier; UI text names no terminal command; SDK text names no flag', () => {
    for (const { reason, surface, text } of rendered) {
      if (surface === 'cli' || surface === 'ui' || surface === 'uiNext') expect(text, `${reason} ${surface}`).not.toMatch(SDK_IDENTIFIER);
      if (surface === 'ui' || surface === 'uiNext') expect(text, `${reason} ${surface}`).not.toMatch(TERMINAL_COMMAND);
      if (surface === 'sdk') expect(text, `${reason} ${surface}`).not.toMatch(/(^|[\s"'(])--[a-z]|"adcap /);
    }
  });

  it("the UI's own next steps (renderer/src/lib/errors.ts, read as text: tests do not import renderer code) name no command", async () => {
    const source = await readFile(new URL('../../renderer/src/lib/errors.ts', import.meta.url), 'utf8');
    const steps = [...source.matchAll(/^\s+(E_[A-Z_]+):\s*\n?\s*'([^']*)'/gm)].map((m) => ({ code: m[1] as string, text: m[2] as string }));
    // Every code the SDK has a next step for is there, so a step cannot hide from this check.
    expect(steps.map((s) => s.code).filter((code) => (ERROR_CODES as readonly string[]).includes(code)).length).toBeGreaterThan(25);
    for (const { code, text } of steps) {
      expect(text, code).not.toMatch(TERMINAL_COMMAND);
      expect(text, code).not.toMatch(SDK_IDENTIFIER);
    }
  });

  it('the patterns catch what they are for (so the checks above can fail)', () => {
    expect('Enable it with arc.enable("acme/x").').toMatch(SDK_IDENTIFIER);
    expect('(allowUnsigned, or --allow-unsigned)').toMatch(SDK_IDENTIFIER);
    expect('this host passed no authorize callback').toMatch(SDK_IDENTIFIER);
    expect('run `adcap remote update offline`').toMatch(TERMINAL_COMMAND);
    expect('run again with --allow-unsigned').toMatch(TERMINAL_COMMAND);
    expect('Press Refresh all in Settings.').not.toMatch(TERMINAL_COMMAND);
  });
});

describe('real failures on each surface', () => {
  it('a disabled capability: the CLI names adcap enable, the UI names the Installed screen, the SDK names arc.enable', async () => {
    const work = await mkdtemp(join(tmpdir(), 'adcap-surface-'));
    const home = join(work, 'home');
    // The CLI with no ARCOTHEON_ variable: its built-in registry is the bundled examples.
    const run = (argv: string[]) => adcap([...argv, '--home', home], { cwd: work, env: { PATH: process.env.PATH } });
    expect((await run(['install', 'arcotheon/workspace-stats', '--yes', '--json'])).code).toBe(0);
    expect((await run(['disable', 'arcotheon/workspace-stats'])).code).toBe(0);
    const cli = await run(['run', 'arcotheon/workspace-stats', 'count_text', '--input', '{"path":"."}', '--workspace', work]);
    expect(cli.stderr).toMatch(/^error E_DISABLED: .*Enable it with "adcap enable arcotheon\/workspace-stats"\.\n$/);
    expect(cli.stderr).not.toMatch(SDK_IDENTIFIER);

    const arc = new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } } });
    const sdk = await runTool(arc, 'arcotheon/workspace-stats', 'count_text', { path: '.' }, { workspace: work }).catch((e: Error) => e);
    expect(sdk).toMatchObject({ code: 'E_DISABLED', message: expect.stringContaining('arc.enable("arcotheon/workspace-stats")') });

    const host = createHostService(arc);
    // A folder beside the home, not holding it (a workspace that holds the home is refused).
    const folder = await mkdtemp(join(tmpdir(), 'adcap-surface-workspace-'));
    const workspace = await host.dispatch('workspaces.confirm', [folder]);
    expect(workspace.ok).toBe(true);
    const handle = (workspace as { value: { handle: string } }).value.handle;
    const started = await host.dispatch('run.tool', ['arcotheon/workspace-stats', 'count_text', { path: '.' }, { workspace: handle }]);
    const ended = await outcome(host, started);
    expect(ended.ok).toBe(false);
    if (ended.ok) return;
    expect(ended.error.code).toBe('E_DISABLED');
    expect(ended.error.message).not.toMatch(TERMINAL_COMMAND);
    expect(ended.error.message).not.toMatch(SDK_IDENTIFIER);
    expect(ended.error.next).toBe('Switch it on with Enabled on the Installed screen, then run again.');
  });

  it('an entitled download with no sign-in: the CLI says the command has none, the UI says the app cannot sign in', async () => {
    const work = await mkdtemp(join(tmpdir(), 'adcap-surface-pro-'));
    const home = join(work, 'home');
    const cli = await adcap(['install', 'acme/contract-review', '--yes', '--home', home], { cwd: work, env: { PATH: process.env.PATH } });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(
      /error E_ENTITLEMENT: acme\/contract-review@1\.0\.0 is an entitled download, and the adcap command has no sign-in/,
    );
    expect(cli.stderr).not.toMatch(SDK_IDENTIFIER);

    const host = createHostService(new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } } }));
    const plan = await host.dispatch('installs.plan', ['acme/contract-review']);
    const digest = plan.ok ? (plan.value as { digest: string }).digest : '';
    const started = await host.dispatch('installs.install', ['acme/contract-review', { approvedDigest: digest }]);
    const ended = await outcome(host, started);
    expect(ended.ok, JSON.stringify([plan, started, ended])).toBe(false);
    if (ended.ok) return;
    expect(ended.error.code).toBe('E_ENTITLEMENT');
    expect(ended.error.message).toMatch(/needs a licence from its publisher, and this app cannot sign in to publishers/);
    expect(ended.error.message).not.toMatch(SDK_IDENTIFIER);
    expect(ended.error.message).not.toMatch(TERMINAL_COMMAND);
  });

  it('a relative workspace path in the UI: no "bug in the app", a next step that names the folder chooser', async () => {
    const home = await mkdtemp(join(tmpdir(), 'adcap-surface-ws-'));
    const host = createHostService(new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } }, remotes: [] }));
    const result = await host.dispatch('workspaces.confirm', ['projects/notes']);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: 'E_USAGE', message: '"projects/notes" is not the full path of a folder.' });
    expect(result.error.next).toMatch(/^Press Choose folder… and pick the folder/);
  });
});

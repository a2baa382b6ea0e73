import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../../sdk/src/cli/main.js';
import { platformDataDir, resolveHome } from '../../../sdk/src/cli/context.js';
import type { CliIO } from '../../../sdk/src/cli/output.js';
import { adcap } from './run-cli.js';

const cwd = '/work/somewhere';

describe('adcap main: errors, exit codes, global options (DESIGN §8)', () => {
  it('usage errors print "error E_USAGE: ..." on stderr and exit 2', async () => {
    const unknown = await adcap(['verify', 'x.adcap', '--bogus'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error E_USAGE: Unknown option '--bogus'.*adcap --help/m);
    expect(unknown.stdout).toBe('');

    const missing = await adcap(['verify'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error E_USAGE: Missing required argument 'file'/m);

    const command = await adcap(['frobnicate'], { cwd });
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/^error E_USAGE: Unknown command 'frobnicate'/m);
  });

  it('no command prints help and a usage error', async () => {
    const run = await adcap([], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: adcap');
    expect(run.stderr).toMatch(/^error E_USAGE: No command given/m);
  });

  it('with --json, usage errors also print { ok: false, code, message } on stdout', async () => {
    for (const argv of [
      ['--json', 'verify'],
      ['verify', '--json'],
      ['verify', 'x', '--bogus', '--json'],
    ]) {
      const run = await adcap(argv, { cwd });
      expect(run.code, argv.join(' ')).toBe(2);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'E_USAGE' });
      expect(run.stderr).toMatch(/^error E_USAGE: /m);
    }
  });

  it('operational errors exit 1 with the error line (and JSON with --json)', async () => {
    const run = await adcap(['inspect', 'does-not-exist.adcap'], { cwd: '/nonexistent-dir' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error E_[A-Z_]+: \S.*$/m);
    const json = await adcap(['inspect', '--json', 'does-not-exist.adcap'], { cwd: '/nonexistent-dir' });
    expect(json.code).toBe(1);
    const body = JSON.parse(json.stdout) as { ok: boolean; code: string; message: string };
    expect(body.ok).toBe(false);
    expect(json.stderr.trim()).toBe(`error ${body.code}: ${body.message}`);
  });

  it('--help and --version exit 0; help lists the authoring commands and global options', async () => {
    const help = await adcap(['--help'], { cwd });
    expect(help.code).toBe(0);
    for (const name of ['init', 'build', 'sign', 'verify', 'inspect', 'keygen', '--home', '--json']) expect(help.stdout).toContain(name);
    const sub = await adcap(['verify', '--help'], { cwd });
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('--trust');
    expect(sub.stdout).toContain('--home');
    const version = await adcap(['--version'], { cwd });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('--home and --json are accepted before or after the subcommand, and ctx.home() resolves them', async () => {
    const seen: Array<{ home: string; json: boolean }> = [];
    const io: CliIO = {
      stdout: () => undefined,
      stderr: () => undefined,
      // Not a user's run: a temporary home instead of the user's own.
      env: { ARCOTHEON_HOME: '/env/home' },
      cwd,
      platform: 'linux',
      homedir: '/home/u',
      stdinIsTTY: false,
    };
    for (const argv of [
      ['--home', 'h1', 'probe'],
      ['probe', '--home', 'h1'],
      ['--json', 'probe'],
      ['probe', '--json'],
    ]) {
      const { program, ctx } = createProgram(io);
      // A command module registered the documented way: one register(program, ctx) call.
      const probe = {
        register: (p: Command) => p.command('probe').action(() => void seen.push({ home: ctx.home(), json: ctx.output.json })),
      };
      probe.register(program);
      await program.parseAsync(argv, { from: 'user' });
    }
    expect(seen).toEqual([
      { home: '/work/somewhere/h1', json: false },
      { home: '/work/somewhere/h1', json: false },
      { home: '/env/home', json: true },
      { home: '/env/home', json: true },
    ]);
  });
});

describe('extension by command modules', () => {
  it('nested commands of a registered module report parse errors through runCli, printing nothing themselves', async () => {
    let printed = '';
    const io: CliIO = {
      stdout: (t) => void (printed += t),
      stderr: (t) => void (printed += t),
      env: {},
      cwd,
      platform: 'linux',
      homedir: '/h',
      stdinIsTTY: false,
    };
    const { program } = createProgram(io);
    program
      .command('group')
      .command('leaf')
      .argument('<x>')
      .action(() => undefined);
    const error = await program.parseAsync(['group', 'leaf'], { from: 'user' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'commander.missingArgument' });
    expect(printed).toBe('');
  });
});

describe('home directory resolution', () => {
  const base = { cwd: '/cwd', homedir: '/home/u' };
  it('prefers --home, then ARCOTHEON_HOME, then the platform data dir', () => {
    // Not a user's run: a temporary home instead of the user's own.
    expect(resolveHome('rel', { ...base, env: { ARCOTHEON_HOME: '/a' }, platform: 'linux' })).toBe('/cwd/rel');
    // Not a user's run: a temporary home instead of the user's own.
    expect(resolveHome(undefined, { ...base, env: { ARCOTHEON_HOME: '/a' }, platform: 'linux' })).toBe('/a');
    expect(resolveHome(undefined, { ...base, env: {}, platform: 'linux' })).toBe('/home/u/.local/share/arcotheon');
  });

  it('uses the platform conventions', () => {
    expect(platformDataDir('linux', { XDG_DATA_HOME: '/xdg' }, '/home/u')).toBe('/xdg/arcotheon');
    // XDG Base Directory: a relative XDG_DATA_HOME is ignored.
    expect(platformDataDir('linux', { XDG_DATA_HOME: 'relative' }, '/home/u')).toBe('/home/u/.local/share/arcotheon');
    expect(platformDataDir('freebsd', {}, '/home/u')).toBe('/home/u/.local/share/arcotheon');
    expect(platformDataDir('darwin', { XDG_DATA_HOME: '/xdg' }, '/Users/u')).toBe('/Users/u/Library/Application Support/Arcotheon');
    expect(platformDataDir('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'C:\\Users\\u')).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\Arcotheon',
    );
    expect(platformDataDir('win32', {}, 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Roaming\\Arcotheon');
  });
});

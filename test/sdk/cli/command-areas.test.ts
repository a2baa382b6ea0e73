// A start of adcap registers only the commands of the area it was asked for (cli/main.ts
// COMMAND_AREAS, commandWord); these tests keep the table equal to what each area registers, and
// check that help, suggestions and global options read as when every command is registered.
import { describe, expect, it } from 'vitest';
import { COMMAND_AREAS, commandWord, createProgram } from '../../../sdk/src/cli/main.js';
import type { CliIO } from '../../../sdk/src/cli/output.js';
import { adcap } from './run-cli.js';

const io: CliIO = {
  stdout: () => undefined,
  stderr: () => undefined,
  env: {},
  cwd: '/work/somewhere',
  platform: 'linux',
  homedir: '/home/someone',
  stdinIsTTY: false,
  stderrIsTTY: false,
  ask: () => Promise.resolve(''),
};

const names = (command?: string): string[] => createProgram(io, command).program.commands.map((c) => c.name());

describe('the command areas of adcap', () => {
  it('each area registers exactly the commands the table names, and every command is in one area', () => {
    for (const area of COMMAND_AREAS) {
      for (const command of area.commands) expect(names(command), command).toEqual(area.commands);
    }
    expect(names(), 'every command of the full program is listed in COMMAND_AREAS').toEqual(COMMAND_AREAS.flatMap((a) => a.commands));
    expect(new Set(names()).size).toBe(names().length);
  });

  it('commandWord finds the command after global options, and none when help or the version comes first', () => {
    expect(commandWord(['run', 'a/b', 'echo'])).toBe('run');
    expect(commandWord(['--home', '/h', '--json', 'list'])).toBe('list');
    expect(commandWord(['--home=/h', 'install', 'x'])).toBe('install');
    expect(commandWord(['--home', 'run', 'list']), "run is --home's value").toBe('list');
    expect(commandWord(['run', '--help'])).toBe('run');
    for (const argv of [[], ['--json'], ['--help', 'run'], ['-h'], ['-V'], ['--version', 'list'], ['--', 'run'], ['--home']]) {
      expect(commandWord(argv), argv.join(' ')).toBeUndefined();
    }
  });

  it('help, suggestions and errors read as with every command registered', async () => {
    const help = await adcap(['--help'], { cwd: io.cwd });
    for (const command of COMMAND_AREAS.flatMap((a) => a.commands)) expect(help.stdout).toContain(command);
    const typo = await adcap(['instal', 'x'], { cwd: io.cwd });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/Unknown command 'instal' \(did you mean install\?\)/);
    const runHelp = await adcap(['run', '--help'], { cwd: io.cwd });
    expect(runHelp.code).toBe(0);
    expect(runHelp.stdout).toContain('Usage: adcap run [options] <id> <tool>');
    expect(runHelp.stdout).toContain('--home <dir>');
    const badOption = await adcap(['--json', 'verify', 'x', '--bogus'], { cwd: io.cwd });
    expect(badOption.code).toBe(2);
    expect(JSON.parse(badOption.stdout)).toMatchObject({ ok: false, code: 'E_USAGE' });
  });
});

#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { AdcapError } from '../errors.js';
import * as add from './commands/add.js';
import * as agents from './commands/agents.js';
import * as authoring from './commands/authoring.js';
import * as client from './commands/client.js';
import * as importing from './commands/import.js';
import * as lifecycle from './commands/lifecycle.js';
import * as policy from './commands/policy.js';
import * as registry from './commands/registry.js';
import * as run from './commands/run.js';
import * as secrets from './commands/secrets.js';
import { resolveHome, type CliContext } from './context.js';
import { sdkVersion } from './host.js';
import { EXIT_OK, EXIT_USAGE, Output, terminalSafeIO, toAdcapError, type CliIO } from './output.js';

/**
 * The `adcap` command (DESIGN §8). Each area lives in `commands/<area>.ts` and exports
 * `register(program, ctx)`; to add one, import it and list it in COMMAND_AREAS.
 * Commands throw AdcapError; this file turns that into the error line and the exit code.
 */

export interface GlobalOptions {
  home?: string;
  json?: boolean;
}

/**
 * The command areas and the top-level commands each registers, in the order help lists them.
 * A start registers only the area of the command it was given (commandWord): building all ~60
 * commands and their options was a tenth of a short command's time. test/sdk/cli/main.test.ts
 * checks this table against what each area registers; a command missing here still works (an
 * unknown word registers every area), it is only not started the short way.
 */
export const COMMAND_AREAS: ReadonlyArray<{ commands: readonly string[]; register: (program: Command, ctx: CliContext) => void }> = [
  { commands: ['keygen', 'init', 'build', 'sign', 'verify', 'inspect'], register: authoring.register },
  { commands: ['registry'], register: registry.register },
  { commands: ['remote', 'search', 'show'], register: client.register },
  { commands: ['install', 'list', 'update', 'rollback', 'uninstall', 'grants', 'doctor', 'cache'], register: lifecycle.register },
  { commands: ['disable', 'enable', 'policy'], register: policy.register },
  { commands: ['run', 'workflow', 'mcp', 'audit'], register: run.register },
  { commands: ['link', 'unlink', 'agents'], register: agents.register },
  { commands: ['add'], register: add.register },
  { commands: ['secret'], register: secrets.register },
  { commands: ['import'], register: importing.register },
];

/**
 * The command `argv` names (its first word that is neither an option nor --home's value), or
 * undefined when there is none or help or the version is asked for before it (then help lists
 * every command).
 */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return undefined;
    if (['-h', '--help', '-V', '--version'].includes(arg)) return undefined;
    if (arg === '--home') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The `adcap` program with every command, or (given `command`, see commandWord) with only the
 * commands of the area that defines it when COMMAND_AREAS names it.
 */
export function createProgram(rawIo: CliIO, command?: string): { program: Command; ctx: CliContext; exitCode: () => number } {
  // Text from packages, registries and tools never reaches the terminal raw.
  const io = terminalSafeIO(rawIo);
  const program = new Command('adcap');
  let exitCode = EXIT_OK;
  // Global options are program options: commander accepts them before or after the subcommand.
  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  const output = new Output(io, () => globals().json === true);
  const ctx: CliContext = {
    io,
    output,
    home: () => resolveHome(globals().home, io),
    resolvePath: (path) => resolve(io.cwd, path),
    setExitCode: (code) => {
      exitCode = code;
    },
  };

  program
    .description('Build, sign, verify, install and run .adcap capability packages.')
    .version(sdkVersion(), '-V, --version', 'print the version')
    .option('--home <dir>', 'home directory (default: $ARCOTHEON_HOME, else the platform data directory)')
    .option('--json', 'print machine-readable JSON on stdout')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      // Commander's own messages are re-issued as `error E_USAGE: ...` by runCli.
      outputError: () => undefined,
    });

  const only = command === undefined ? undefined : COMMAND_AREAS.find((area) => area.commands.includes(command));
  for (const area of only === undefined ? COMMAND_AREAS : [only]) area.register(program, ctx);

  // Subcommands made with .command() inherit these settings; ones added with .addCommand() do
  // not, so apply them to the whole tree: every parse error then reaches runCli as one error line.
  const configure = (command: Command): void => {
    command.exitOverride().configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: () => undefined,
    });
    command.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return { program, ctx, exitCode: () => exitCode };
}

/** Runs `adcap` with `argv` (without node and script) and resolves to the exit code. */
export async function runCli(argv: readonly string[], rawIo: CliIO = processIO()): Promise<number> {
  const { program, ctx, exitCode } = createProgram(rawIo, commandWord(argv));
  const io = ctx.io;
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return ctx.output.failure(new AdcapError('E_USAGE', 'No command given; run "adcap --help" to see the commands.'));
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return EXIT_OK;
      // Parsing may have stopped before commander saw --json, so look for it in argv too.
      const output = new Output(io, () => ctx.output.json || jsonRequested(argv));
      output.failure(new AdcapError('E_USAGE', commanderSentence(error.message)));
      return EXIT_USAGE;
    }
    return ctx.output.failure(toAdcapError(error));
  }
}

/** "error: unknown option '--x'\n(Did you mean --y?)" -> "Unknown option '--x' (did you mean --y?); run ...". */
function commanderSentence(message: string): string {
  const text = message
    .replace(/^error:\s*/i, '')
    .replace(/\s*\n\s*\((.*)\)\s*$/s, (_all, hint: string) => ` (${hint.charAt(0).toLowerCase()}${hint.slice(1)})`)
    .replace(/\s+/g, ' ')
    .trim();
  const sentence = text.charAt(0).toUpperCase() + text.slice(1).replace(/\.$/, '');
  return `${sentence}; run "adcap --help" for usage.`;
}

function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

export function processIO(): CliIO {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    homedir: homedir(),
    stdinIsTTY: process.stdin.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    ask: async (question) => {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
  };
}

function invokedAsBin(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    // node_modules/.bin/adcap is a symlink; compare real paths.
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** Runs the CLI as the process (from bin.ts, the package's bin, or when main.js is run directly). */
export async function runAsBin(): Promise<void> {
  // A closed pipe (`adcap inspect x | head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await runCli(process.argv.slice(2));
}

if (invokedAsBin()) await runAsBin();

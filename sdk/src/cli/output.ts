import { asAdcapError, type AdcapError } from '../errors.js';
import { surfaceMessage } from '../surface-text.js';
import { terminalSafe } from './terminal-safe.js';

/**
 * Where the CLI writes. The bin uses the real process; tests pass their own to run commands
 * in-process and capture everything.
 */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  platform: NodeJS.Platform;
  homedir: string;
  /** Whether stdin is an interactive terminal (for commands that ask questions). */
  stdinIsTTY: boolean;
  /** Whether stderr is a terminal (progress bars are drawn only there). */
  stderrIsTTY?: boolean;
  /** Asks a question on the terminal and resolves to the answer (absent: no terminal). */
  ask?: (question: string) => Promise<string>;
}

/**
 * The same IO with every write passed through `terminalSafe`: the CLI wraps its
 * IO once, so no command, error line, plan or commander message can reach the terminal raw.
 */
export function terminalSafeIO(io: CliIO): CliIO {
  return { ...io, stdout: (text) => io.stdout(terminalSafe(text)), stderr: (text) => io.stderr(terminalSafe(text)) };
}

/** Exit codes (DESIGN §8): 0 success, 1 an operation failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** The one error line format of DESIGN §8: `error E_CODE: sentence`. */
/** The one error line; its sentence names flags and commands (surface-text.ts), never SDK calls. */
function errorLine(error: AdcapError): string {
  return `error ${error.code}: ${surfaceMessage(error, 'cli')}`;
}

function exitCodeFor(error: AdcapError): number {
  return error.code === 'E_USAGE' ? EXIT_USAGE : EXIT_FAILURE;
}

/** Any thrown value as an AdcapError; something unexpected keeps its message under E_IO. */
export function toAdcapError(error: unknown): AdcapError {
  return asAdcapError(error, 'Unexpected failure');
}

/**
 * Output helpers shared by every command: the result goes to stdout, as JSON with `--json`
 * (pretty-printed, one document) or as lines for a person otherwise; notes for a person go to
 * stderr and are dropped in JSON mode so stdout stays machine-readable.
 */
export class Output {
  constructor(
    private readonly io: CliIO,
    private readonly jsonMode: () => boolean,
  ) {}

  get json(): boolean {
    return this.jsonMode();
  }

  /** Prints the command's result: `value` with --json, else the `human` lines. */
  result(value: unknown, human: () => string | readonly string[]): void {
    if (this.json) {
      this.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
      return;
    }
    const lines = human();
    const text = typeof lines === 'string' ? lines : lines.join('\n');
    if (text.length > 0) this.io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** A line for a person (progress, hints) on stderr; silent with --json. */
  note(line: string): void {
    if (!this.json) this.io.stderr(`${line}\n`);
  }

  /**
   * Reports a failure: the error line on stderr always, and with --json also
   * `{ ok: false, code, message }` on stdout (DESIGN §8). Returns the exit code.
   */
  failure(error: AdcapError): number {
    const message = surfaceMessage(error, 'cli');
    if (this.json) this.io.stdout(`${JSON.stringify({ ok: false, code: error.code, message }, null, 2)}\n`);
    this.io.stderr(`${errorLine(error)}\n`);
    return exitCodeFor(error);
  }
}

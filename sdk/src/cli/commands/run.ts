import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AdcapError } from '../../errors.js';
import { AuditLog } from '../../run/audit.js';
import { runTool } from '../../run/run-tool.js';
import { resumeWorkflow, runWorkflow, type WorkflowRunResult } from '../../run/workflow.js';
import { readPausedRun } from '../../run/workflow-runs.js';
import { storeOf } from '../../store/store-of.js';
import type { CliContext } from '../context.js';
import { cliSecretSource } from './secrets.js';
// The shared CLI host: agent id "arcotheon" and the embedded default remote, whose blob mirror
// serves the examples' resources and shards offline.
import { openArcotheon, sdkVersion } from '../host.js';

/**
 * Running capabilities (DESIGN §8): `run <id> <tool> --input JSON [--workspace DIR]`,
 * `workflow <id> <workflowId> --inputs JSON [--workspace DIR]` (and `workflow --resume <token>
 * --agent-output JSON|@file` or `--agent-text TEXT|@file` after an agent step), `mcp <id>...` and `audit verify`.
 * Tools run sandboxed (E_SANDBOX_UNAVAILABLE without a sandbox); the CLI never opts out.
 */
export function register(program: Command, ctx: CliContext): void {
  const { output } = ctx;

  program
    .command('run')
    .description('run a granted tool of an installed capability and print its output JSON (--json: the output object itself)')
    .argument('<id>', 'installed capability id, e.g. acme/pdf')
    .argument('<tool>', 'tool name')
    .option('--input <json>', 'the tool input as JSON, or @file.json', '{}')
    .option('--workspace <dir>', 'the folder the tool may read or write, if it was granted that')
    .option('--timeout <ms>', 'a lower timeout than the tool declares', parsePositiveInt)
    .action(async (id: string, tool: string, opts: { input: string; workspace?: string; timeout?: number }) => {
      const input = parseJsonArg(opts.input, '--input', ctx);
      const result = await runTool(await openArcotheon(ctx), id, tool, input, {
        workspace: opts.workspace === undefined ? null : ctx.resolvePath(opts.workspace),
        secrets: cliSecretSource(ctx),
        ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout }),
      });
      output.result(result.output, () => JSON.stringify(result.output, null, 2));
    });

  program
    .command('workflow')
    .description(
      'run a workflow of an installed capability up to its first agent step, and print the result JSON; ' +
        "continue it after the agent step with --resume <token> and the agent's answer",
    )
    .argument('[id]', 'installed capability id (not needed with --resume)')
    .argument('[workflowId]', 'workflow id (not needed with --resume)')
    .option('--inputs <json>', 'the workflow inputs as JSON, or @file.json', '{}')
    .option('--workspace <dir>', 'the folder tool steps may read or write, if they were granted that')
    .option('--resume <token>', 'the resumeToken printed when the workflow stopped at an agent step')
    .option('--agent-output <json>', "with --resume: the agent's answer as JSON, or @file.json")
    .option('--agent-text <text>', "with --resume: the agent's answer as plain text, or @file")
    .action(async (id: string | undefined, workflowId: string | undefined, opts: WorkflowFlags) => {
      const arc = await openArcotheon(ctx);
      const workspace = opts.workspace === undefined ? null : ctx.resolvePath(opts.workspace);
      let result: WorkflowRunResult;
      if (opts.resume !== undefined) {
        const answer = agentAnswer(opts, ctx);
        if (id !== undefined || workflowId !== undefined) {
          // The ids are optional with --resume; given, they must be those of the paused run.
          const paused = await readPausedRun(storeOf(arc), opts.resume);
          if ((id !== undefined && id !== paused.capability) || (workflowId !== undefined && workflowId !== paused.workflow)) {
            throw new AdcapError(
              'E_USAGE',
              `--resume ${opts.resume} belongs to workflow ${paused.workflow} of ${paused.capability}; ` +
                'give those ids, or none, with --resume.',
            );
          }
        }
        result = await resumeWorkflow(arc, opts.resume, answer, { workspace, secrets: cliSecretSource(ctx) });
      } else {
        if (id === undefined || workflowId === undefined) {
          throw new AdcapError('E_USAGE', 'adcap workflow needs <id> and <workflowId>, or --resume <token> after an agent step.');
        }
        if (opts.agentOutput !== undefined || opts.agentText !== undefined) {
          throw new AdcapError('E_USAGE', '--agent-output and --agent-text go with --resume <token>, after the workflow stopped.');
        }
        const inputs = parseJsonArg(opts.inputs, '--inputs', ctx);
        result = await runWorkflow(arc, id, workflowId, inputs, { workspace, secrets: cliSecretSource(ctx) });
      }
      output.result(result, () => JSON.stringify(result, null, 2));
      if (result.status === 'agent') {
        output.note(`stopped at agent step "${result.stepId}": ${result.instruction}`);
        output.note(
          `continue with: adcap workflow --resume ${result.resumeToken} --agent-text @answer.txt` +
            (result.outputSchema === undefined ? '' : " (or --agent-output @answer.json matching the step's outputSchema)"),
        );
      }
    });

  program
    .command('mcp')
    .description('serve the granted tools of installed capabilities as an MCP server on stdin/stdout')
    .argument('<ids...>', 'installed capability ids')
    .option('--workspace <dir>', 'the folder tools may read or write, if they were granted that')
    .action(async (ids: string[], opts: { workspace?: string }) => {
      // Loaded on demand: the MCP SDK and zod are large, and only this command needs them.
      const { mcpServe } = await import('../../run/mcp.js');
      const handle = await mcpServe(await openArcotheon(ctx), ids, {
        ...(opts.workspace === undefined ? {} : { workspace: ctx.resolvePath(opts.workspace) }),
        env: ctx.io.env,
        secrets: cliSecretSource(ctx),
        serverInfo: { name: 'adcap', version: sdkVersion() },
        // A failed call's text names adcap commands, for the person reading the agent's answer.
        surface: 'cli',
      });
      await handle.closed;
    });

  const audit = program.command('audit').description('the hash-chained log of tool and workflow runs');
  audit
    .command('verify')
    .description('check that no line of the audit log was edited, removed, inserted or reordered')
    .action(async () => {
      const arc = await openArcotheon(ctx);
      const verified = await new AuditLog(storeOf(arc).home.auditDir).verify();
      output.result(
        { ok: true, lines: verified.lines, head: verified.head },
        () => `audit log intact: ${verified.lines} line${verified.lines === 1 ? '' : 's'}`,
      );
    });
}

interface WorkflowFlags {
  inputs: string;
  workspace?: string;
  resume?: string;
  agentOutput?: string;
  agentText?: string;
}

/** The answer given with --resume: exactly one of --agent-output (JSON) and --agent-text (text). */
function agentAnswer(opts: WorkflowFlags, ctx: CliContext): unknown {
  if ((opts.agentOutput === undefined) === (opts.agentText === undefined)) {
    throw new AdcapError('E_USAGE', "--resume needs the agent's answer: --agent-output JSON|@file.json, or --agent-text TEXT|@file.");
  }
  if (opts.agentOutput !== undefined) return parseJsonArg(opts.agentOutput, '--agent-output', ctx);
  return readArg(opts.agentText ?? '', '--agent-text', ctx);
}

/** The text of a flag, or of the file it names with @path. */
function readArg(text: string, flag: string, ctx: CliContext): string {
  if (!text.startsWith('@')) return text;
  const file = ctx.resolvePath(text.slice(1));
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new AdcapError(
      'E_USAGE',
      `Cannot read ${flag} file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); give the text or @path-to-a-file.`,
    );
  }
}

function parseJsonArg(text: string, flag: string, ctx: CliContext): unknown {
  let source = text;
  if (text.startsWith('@')) {
    const file = ctx.resolvePath(text.slice(1));
    try {
      source = readFileSync(file, 'utf8');
    } catch (error) {
      throw new AdcapError(
        'E_USAGE',
        `Cannot read ${flag} file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); give JSON or @path-to-a-json-file.`,
      );
    }
  }
  try {
    return JSON.parse(source) as unknown;
  } catch {
    throw new AdcapError('E_USAGE', `${flag} is not valid JSON; pass an object such as ${flag} '{"text":"hi"}'.`);
  }
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new AdcapError('E_USAGE', `"${value}" is not a positive number of milliseconds.`);
  return n;
}

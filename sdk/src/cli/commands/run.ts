import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AdcapError } from '../../errors.js';
import { AuditLog } from '../../run/audit.js';
import { runTool } from '../../run/run-tool.js';
import { runWorkflow } from '../../run/workflow.js';
import type { CliContext } from '../context.js';
import { cliSecretSource } from './secrets.js';
// The shared CLI host: agent id "arcotheon" and the embedded default remote, whose blob mirror
// serves the examples' resources and shards offline (issue 7).
import { openArcotheon, sdkVersion } from '../host.js';

/**
 * Running capabilities (DESIGN §8): `run <id> <tool> --input JSON [--workspace DIR]`,
 * `workflow <id> <workflowId> --inputs JSON [--workspace DIR]`, `mcp <id>...` and `audit verify`.
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
    .description('run a workflow of an installed capability up to its first agent step, and print the result JSON')
    .argument('<id>', 'installed capability id')
    .argument('<workflowId>', 'workflow id')
    .option('--inputs <json>', 'the workflow inputs as JSON, or @file.json', '{}')
    .option('--workspace <dir>', 'the folder tool steps may read or write, if they were granted that')
    .action(async (id: string, workflowId: string, opts: { inputs: string; workspace?: string }) => {
      const inputs = parseJsonArg(opts.inputs, '--inputs', ctx);
      const result = await runWorkflow(await openArcotheon(ctx), id, workflowId, inputs, {
        workspace: opts.workspace === undefined ? null : ctx.resolvePath(opts.workspace),
        secrets: cliSecretSource(ctx),
      });
      output.result(result, () => JSON.stringify(result, null, 2));
      if (result.status === 'agent') output.note(`stopped at agent step "${result.stepId}": ${result.instruction}`);
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
        serverInfo: { name: 'adcap', version: sdkVersion() },
      });
      await handle.closed;
    });

  const audit = program.command('audit').description('the hash-chained log of tool and workflow runs');
  audit
    .command('verify')
    .description('check that no line of the audit log was edited, removed, inserted or reordered')
    .action(async () => {
      const arc = await openArcotheon(ctx);
      const verified = await new AuditLog(arc.home.auditDir).verify();
      output.result(
        { ok: true, lines: verified.lines, head: verified.head },
        () => `audit log intact: ${verified.lines} line${verified.lines === 1 ? '' : 's'}`,
      );
    });
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

/**
 * What the sandbox is given to start an `mcp` tool's server (docs/spec/mcp-runtime.md): the
 * server's `args` and `env` with `${dir}`, `${workspace}` and `${env.NAME}` filled in. Kept apart
 * from mcp-runtime.ts (the MCP client), so runTool loads the MCP SDK only for mcp tools.
 *
 * The server's own variables reach it through the sandbox's env:read mechanism (DESIGN §5: only
 * granted names are passed): each `env` name is added to the grants handed to the sandbox, with
 * the filled-in value, and nothing of the host's environment beyond what the tool was granted.
 */
import { AdcapError } from '../errors.js';
import { MCP_TEMPLATE } from '../format/manifest.js';
import type { Tool } from '../format/manifest-types.js';
import { isMcpRuntime } from '../format/runtime-table.js';

export interface ServerLaunchParts {
  args: string[];
  env: Record<string, string>;
  grants: string[];
}

/**
 * For an mcp tool, `parts` with the server's `args` and `env` filled in (`values` are the granted
 * env:read values); for any other tool, `parts` unchanged.
 */
export function serverLaunchParts(
  tool: Tool,
  parts: ServerLaunchParts,
  where: { dir: string; workspace: string | null },
): ServerLaunchParts {
  if (!isMcpRuntime(tool.runtime)) return parts;
  const server = tool.runtime.server;
  const fill = (text: string): string =>
    text.replace(MCP_TEMPLATE, (_whole, name: string) => {
      if (name === 'dir') return where.dir;
      if (name === 'workspace') {
        if (where.workspace === null) {
          throw new AdcapError(
            'E_USAGE',
            `The tool ${tool.name} works in a folder you choose: choose one for this run (the workspace) and try again.`,
          );
        }
        return where.workspace;
      }
      // manifest rule mcp-template: only env:read variables the tool declares.
      if (name.startsWith('env.')) return parts.env[name.slice('env.'.length)] ?? '';
      throw new AdcapError('E_SCHEMA', `The MCP server of tool ${tool.name} refers to \${${name}}, which is not defined.`);
    });
  // A server argument is the remainder of the launch; an unset ${env.NAME} is an empty argument.
  const fixedArgs = parts.args.slice(0, parts.args.length - (server.args?.length ?? 0));
  const args = [...fixedArgs, ...(server.args ?? []).map(fill)];
  const env = { ...parts.env };
  const grants = [...parts.grants];
  for (const [name, template] of Object.entries(server.env ?? {})) {
    const value = fill(template);
    // A variable made only of an unset ${env.NAME} stays unset, as env:read leaves it.
    if (value === '' && template !== '') continue;
    env[name] = value;
    if (!grants.includes(`env:read:${name}`)) grants.push(`env:read:${name}`);
  }
  return { args, env, grants };
}

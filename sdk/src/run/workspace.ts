/**
 * The folder a run may be given as its workspace (SECURITY.md "Workspaces"): an
 * existing folder that neither is, contains, nor lies inside the Arcotheon home. The home holds
 * secrets.json, every capability's grants and tool data, and the audit log; a tool holding only
 * fs:read:workspace would read them all through `--workspace ~`. runTool, runWorkflow and
 * mcpServe check here, so the CLI, `adcap mcp` and every host get the same answer; hosts call it
 * when the user picks a folder, to say no before a run.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { AdcapError } from '../errors.js';
import { isSameOrInside, resolvedPath } from '../util/resolved-path.js';

/**
 * Checks `workspace` for a run against the Arcotheon home `home` and returns its real path (null
 * for null). Throws E_IO when it is not an existing folder, and E_USAGE when it is the home,
 * contains it, or is inside it (compared on real paths, so a link to the home is refused too).
 */
export async function checkWorkspace(home: string, workspace: string | null): Promise<string | null> {
  if (workspace === null) return null;
  if (typeof workspace !== 'string' || workspace === '')
    throw new AdcapError('E_USAGE', 'The workspace must be the path of a folder (a non-empty string), or null for none.');
  const absolute = path.resolve(workspace);
  const info = await stat(absolute).catch(() => null);
  if (info === null || !info.isDirectory()) {
    throw new AdcapError('E_IO', `The workspace ${absolute} is not an existing folder; choose an existing folder for this run.`, {
      details: { path: absolute },
    });
  }
  const real = resolvedPath(absolute);
  const realHome = resolvedPath(home);
  const inside = isSameOrInside(real, realHome);
  if (inside || isSameOrInside(realHome, real)) {
    const how = real === realHome ? 'is' : inside ? 'is inside' : 'contains';
    throw new AdcapError(
      'E_USAGE',
      `The workspace ${real} ${how} the Arcotheon home (${realHome}), which holds its secrets, grants, ` +
        'tool data and audit log; a tool given that folder could read them. Choose a project folder outside the home as the workspace.',
      { details: { path: real, home: realHome } },
    );
  }
  return real;
}

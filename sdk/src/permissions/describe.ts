import type { Permission } from '../format/manifest-types.js';
import { parseGrant, type Grant } from './grants.js';
import { parseFsScope, parseNetScope } from './scopes.js';

export interface DescribeOptions {
  /** How the UI names the workspace folder once chosen (e.g. "~/projects/site"). */
  workspaceLabel?: string;
}

function asGrant(permission: Grant | Permission | string): Grant {
  return typeof permission === 'string' ? parseGrant(permission) : permission;
}

/** The plain-language sentence for a permission, as shown to the user (DESIGN §5, spec §6). */
export function describePermission(permission: Grant | Permission | string, options: DescribeOptions = {}): string {
  const { id, scope } = asGrant(permission);
  switch (id) {
    case 'fs:read':
      return `Read files in ${fsPlace(scope, options, 'the folder you choose for each run')}`;
    case 'fs:write':
      return `Create, change and delete files in ${fsPlace(scope, options, 'the folder you choose')}`;
    case 'net:connect': {
      if (scope === undefined) return 'Connect to any server on the internet';
      const net = parseNetScope(scope);
      if (typeof net === 'string') return `Connect to ${scope}`;
      const where = net.wildcard ? `any server under ${net.host}` : net.host;
      return net.port === undefined ? `Connect to ${where}` : `Connect to ${where} on port ${net.port}`;
    }
    case 'process:exec':
      // Issue 11, item 5: say what the program can read (it runs in the tool's sandbox; only its executable is added).
      return `Run the program ${scope ?? '(unnamed)'} on your computer; it runs in this tool's sandbox and can read only what the tool can, not the folder it is installed in`;
    case 'env:read':
      return `Read the environment variable ${scope ?? '(unnamed)'} (the app asks you for its value)`;
    case 'storage:data':
      return 'Keep its own data between runs';
  }
}

function fsPlace(scope: string | undefined, options: DescribeOptions, workspaceText: string): string {
  if (scope === 'workspace' || scope === undefined) return options.workspaceLabel ?? workspaceText;
  return scope;
}

export type RiskLevel = 'low' | 'medium' | 'high';

/** Home folders that hold credentials or configuration worth more than ordinary documents. */
const SENSITIVE_HOME_DIRS = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.config', '.netrc', '.npmrc', '.pypirc', '.password-store', 'library/keychains'];

/**
 * A coarse risk level for the UI: low (contained), medium (reaches outside the workspace or holds a
 * secret), high (broad network, writing outside the workspace, running programs, credential folders).
 */
export function riskLevel(permission: Grant | Permission | string): RiskLevel {
  const { id, scope } = asGrant(permission);
  switch (id) {
    case 'storage:data':
      return 'low';
    case 'env:read':
      return 'medium';
    case 'process:exec':
      return 'high';
    case 'net:connect':
      return scope === undefined ? 'high' : 'medium';
    case 'fs:read':
    case 'fs:write': {
      if (scope === undefined || scope === 'workspace') return id === 'fs:read' ? 'low' : 'medium';
      if (id === 'fs:write') return 'high';
      const fs = parseFsScope(scope);
      if (typeof fs === 'string' || fs.kind !== 'home') return 'medium';
      const path = fs.segments.join('/').toLowerCase();
      return SENSITIVE_HOME_DIRS.some((d) => path === d || path.startsWith(`${d}/`)) ? 'high' : 'medium';
    }
  }
}

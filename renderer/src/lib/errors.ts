/**
 * One next step per error code (docs/ui.md "Failure: the sentence from the error, the code small
 * beneath it, and one next step"). The sentence itself comes from the host.
 */
import type { HostError } from '../../../electron/common/index.js';

const NEXT_STEPS: Record<string, string> = {
  E_DOWNLOAD: 'Check your connection and try again; the download is resumed from the cache where possible.',
  E_HASH:
    'A file does not match what its publisher signed. Run a health check from Health; for a download, try again later, ' +
    'and tell the registry if it keeps happening.',
  E_SIGNATURE: 'Do not install this file. Get the capability from a registry you trust.',
  E_UNTRUSTED: 'Do not install this file unless you trust where it came from.',
  E_REVOKED: 'This version was withdrawn by its publisher or registry. Look for a newer version.',
  E_CATALOG: 'The registry could not be verified. Check its address and key in Settings, then refresh.',
  E_STALE: 'Refresh the registries in Settings; if it stays stale, the registry has stopped publishing.',
  E_ROLLBACK: 'The registry sent an older catalogue than before. Do not trust it until its operator explains why.',
  E_RESOLVE: 'Pick another version, or remove what conflicts first.',
  E_INCOMPATIBLE: 'This capability does not support this computer. Look for another version.',
  E_DENIED: 'Nothing was changed. Start again when you are ready.',
  E_ENTITLEMENT: 'This capability needs a licence from its publisher. Sign in with the publisher, then try again.',
  E_LOCKED: 'Another Arcotheon window or command is changing your capabilities. Wait for it to finish, then try again.',
  E_DEPENDENTS: 'Uninstall the capabilities that need it first.',
  E_NOT_INSTALLED: 'Install it first from Discover.',
  E_NOT_FOUND: 'Check the name, or refresh the registries in Settings.',
  E_INPUT: 'Correct the highlighted fields and run again.',
  E_TIMEOUT: 'The tool took too long. Try a smaller input or a smaller folder.',
  E_NOT_GRANTED: 'Grant the permission on the Installed page, then run again.',
  E_SANDBOX_UNAVAILABLE: 'Install the sandbox (bubblewrap on Linux), then run again. See Settings → Sandbox.',
  E_TOOL: 'The tool failed. Check its input; if it keeps failing, tell its publisher.',
  E_LIMIT: 'The file is larger than Arcotheon accepts.',
  E_IO: 'Check that Arcotheon is still running and that your disk has space, then try again.',
  E_USAGE: 'Arcotheon could not use what it was given. Check what you typed or chose, then try again.',
  E_CANCELLED: 'Nothing more will happen; start again when you are ready.',
  E_POLICY: 'Your organisation decided this. Ask your IT administrator if you need it changed.',
  E_DISABLED: 'Switch it on again with Enabled on the Installed screen, then run again.',
};

/** The user's own cancel (DESIGN §9: E_CANCELLED is not a failure, and is not worded as one). */
export const isCancel = (error: HostError): boolean => error.code === 'E_CANCELLED';

/** Detail keys that say how the error was raised, not anything a person reads. */
const INTERNAL_DETAILS = new Set(['reason', 'cancelled']);

/**
 * An error's plain details as label and text, for the "Details" disclosure: a camelCase key in
 * words ("lastError" → "last error"), a value as text (JSON for lists and objects), long values cut.
 */
export function detailEntries(error: HostError): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(error.details ?? {})) {
    if (INTERNAL_DETAILS.has(key) || value === undefined || value === null || value === '') continue;
    const label = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    out.push([label, text.length > 2000 ? `${text.slice(0, 2000)}…` : text]);
  }
  return out;
}

export function nextStep(error: HostError): string {
  // The host sends a next step of its own where this code has a cause with other advice.
  return error.next ?? NEXT_STEPS[error.code] ?? 'Try again; if it keeps failing, run a health check from Health.';
}

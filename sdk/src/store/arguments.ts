/**
 * Shape checks of what a host passes to `Arcotheon`: hosts call the SDK from
 * JavaScript, across IPC, with values typed nowhere. A wrong shape is E_USAGE naming the argument,
 * never a TypeError from somewhere inside.
 */
import { AdcapError } from '../errors.js';

function usage(message: string, argument: string): AdcapError {
  return new AdcapError('E_USAGE', message, { details: { argument } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const FUNCTION_OPTIONS = ['authorize', 'checkTier', 'fetch', 'now'] as const;

/** `new Arcotheon(options)`: the fields the constructor relies on. */
export function checkArcotheonOptions(options: unknown): void {
  if (!isRecord(options)) {
    throw usage(
      'new Arcotheon(options) needs an options object: { home, host: { agent: { id, version } } } (see sdk/README.md).',
      'options',
    );
  }
  if (typeof options.home !== 'string' || options.home === '')
    throw usage('Arcotheon needs a home directory (the "home" option, a path).', 'home');
  const host = options.host;
  const agent = isRecord(host) ? host.agent : undefined;
  if (!isRecord(agent) || typeof agent.id !== 'string' || agent.id === '' || typeof agent.version !== 'string') {
    throw usage('Arcotheon needs host.agent { id, version } (two strings) to check capability compatibility (spec §11).', 'host.agent');
  }
  if (isRecord(host) && host.platform !== undefined && typeof host.platform !== 'string')
    throw usage('host.platform must be a string such as "linux-x64".', 'host.platform');
  for (const name of FUNCTION_OPTIONS) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw usage(`The "${name}" option must be a function.`, name);
  }
  if (options.rootKeys !== undefined && (!Array.isArray(options.rootKeys) || !options.rootKeys.every((k) => typeof k === 'string'))) {
    throw usage('The "rootKeys" option must be an array of base64 public keys.', 'rootKeys');
  }
  if (options.remotes !== undefined && (!Array.isArray(options.remotes) || !options.remotes.every(isRecord))) {
    throw usage('The "remotes" option must be an array of { name, url, rootKeys? } objects.', 'remotes');
  }
  const sandbox = options.sandbox;
  if (sandbox !== undefined) {
    if (!isRecord(sandbox)) throw usage('The "sandbox" option must be an object { use?, optOut? }.', 'sandbox');
    const optOut = sandbox.optOut;
    if (optOut !== undefined && typeof optOut !== 'function' && !(Array.isArray(optOut) && optOut.every((id) => typeof id === 'string'))) {
      throw usage('sandbox.optOut must be an array of capability ids or a function (id) => boolean.', 'sandbox.optOut');
    }
    if (sandbox.use !== undefined && (!isRecord(sandbox.use) || typeof sandbox.use.wrap !== 'function')) {
      throw usage('sandbox.use must be a Sandbox: an object with a name and a wrap(spec) method.', 'sandbox.use');
    }
  }
  const limits = options.limits;
  if (limits !== undefined) {
    if (!isRecord(limits)) throw usage('The "limits" option must be an object.', 'limits');
    for (const name of ['maxCatalogAgeMs', 'keepVersions', 'lockWaitMs', 'refreshAfterMs'] as const) {
      const value = limits[name];
      if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0))
        throw usage(`limits.${name} must be a non-negative number.`, `limits.${name}`);
    }
  }
}

/** The options of install() and update(): callbacks must be functions, the signal an AbortSignal. */
export function checkApplyOptions(options: unknown, method: string): void {
  if (options === undefined) return;
  if (!isRecord(options)) throw usage(`The options of ${method}() must be an object.`, 'options');
  for (const name of ['approve', 'onProgress'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw usage(`The "${name}" option of ${method}() must be a function.`, name);
  }
  if (options.approvedDigest !== undefined && typeof options.approvedDigest !== 'string')
    throw usage(`"approvedDigest" of ${method}() must be the plan digest (a string).`, 'approvedDigest');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw usage(`"signal" of ${method}() must be an AbortSignal.`, 'signal');
}

/** update(ids): undefined (everything) or an array of capability ids. */
export function checkIds(ids: unknown, method: string): void {
  if (ids === undefined) return;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw usage(`${method}() takes an array of capability ids ("publisher/name"), or nothing for all of them.`, 'ids');
  }
}

/** A single capability id argument (installedDir, rollback, uninstall, ...). */
export function checkId(id: unknown, method: string): void {
  if (typeof id !== 'string') throw usage(`${method}() takes a capability id ("publisher/name") as a string.`, 'id');
}

/**
 * An install request: 'id', 'id@range', { id, range? }, an array of those, or
 * { packages?, file?, includePrerelease? }.
 */
export function checkInstallRequest(request: unknown, method: string): void {
  const spec = (value: unknown): boolean =>
    typeof value === 'string' ||
    (isRecord(value) && typeof value.id === 'string' && (value.range === undefined || typeof value.range === 'string'));
  const shape = `${method}() takes "publisher/name[@range]", an array of them, or { packages?, file?, includePrerelease? }`;
  if (typeof request === 'string') return;
  if (Array.isArray(request)) {
    if (!request.every(spec)) throw usage(`${shape}; an entry of the array is neither.`, 'request');
    return;
  }
  if (!isRecord(request)) throw usage(`${shape}, not ${request === null ? 'null' : typeof request}.`, 'request');
  if ('id' in request) {
    if (!spec(request)) throw usage(`${shape}; { id, range? } needs string fields.`, 'request');
    return;
  }
  if (request.packages !== undefined && (!Array.isArray(request.packages) || !request.packages.every(spec)))
    throw usage(`${shape}; "packages" must be an array of them.`, 'request.packages');
  if (request.file !== undefined && (typeof request.file !== 'string' || request.file === ''))
    throw usage(`${shape}; "file" must be the path of a .adcap file.`, 'request.file');
  if (request.includePrerelease !== undefined && typeof request.includePrerelease !== 'boolean')
    throw usage(`${shape}; "includePrerelease" must be true or false.`, 'request.includePrerelease');
  if (
    request.added !== undefined &&
    (request.file === undefined ||
      !isRecord(request.added) ||
      !isRecord(request.added.origin) ||
      !isRecord(request.added.ownKey) ||
      typeof request.added.ownKey.keyId !== 'string')
  )
    throw usage(`${shape}; "added" (from addCapability) needs "file" and { origin, ownKey }.`, 'request.added');
}

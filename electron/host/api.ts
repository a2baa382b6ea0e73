/**
 * The host API as the host side names it. The contract itself (method table, argument schemas,
 * data types, typed client) lives in electron/common, which the renderer imports too; this module
 * re-exports it for host code and keeps the names earlier code used.
 */
export { HOST_METHODS, isHostMethod, METHODS, checkArguments, type HostMethod } from '../common/methods.js';
export type { HostApi, HostClient } from '../common/client.js';
export type { HostEvent, Result } from '../common/types.js';

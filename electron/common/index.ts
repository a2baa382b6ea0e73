/**
 * The host API contract shared by the host (electron/host, electron/web.ts) and the renderer:
 * the method table and its argument schemas (methods.ts), the data that crosses the boundary
 * (types.ts), the typed client (client.ts) and the browser WebSocket transport (ws-transport.ts).
 * Types and plain data only: no Node, no SDK runtime (DESIGN §2). See docs/host-api.md.
 */
export * from './types.js';
export * from './events.js';
export { METHODS, HOST_METHODS, isHostMethod, checkArguments, SIDELOAD_CHUNK_BYTES } from './methods.js';
export type {
  HostMethod,
  InstallTargetData,
  PackageSpecData,
  MethodArgs,
  MethodValue,
  MethodSpec,
  OperationMethod,
  Started,
  WireResult,
  WireValue,
} from './methods.js';
export {
  createHostClient,
  type CallFn,
  type HostApi,
  type HostClient,
  type HostEvents,
  type HostNamespace,
  type OperationRef,
  type SubscribeFn,
} from './client.js';
export {
  apiUrl,
  connectHostSocket,
  connectReconnecting,
  sessionStatus,
  sessionUrl,
  type ConnectionState,
  type HostSocket,
  type ReconnectingHost,
  type ReconnectOptions,
  type SessionStatus,
  type WebSocketFactory,
  type WebSocketLike,
} from './ws-transport.js';

/**
 * The one error type of the SDK. Every failure that reaches a user carries a stable `code`
 * (DESIGN §9) and a sentence a person can act on. Codes are part of the public API: tests assert
 * them and the UI maps them to help text, so never rename one.
 */
export const ERROR_CODES = [
  'E_GZIP',
  'E_TAR',
  'E_ENTRY_TYPE',
  'E_PATH',
  'E_DUPLICATE',
  'E_ORDER',
  'E_LIMIT',
  'E_JSON',
  'E_VERSION_MAJOR',
  'E_SCHEMA',
  'E_SEMANTIC',
  'E_HASH',
  'E_UNLISTED',
  'E_MISSING',
  'E_SIGNATURE',
  'E_UNTRUSTED',
  'E_REVOKED',
  'E_CATALOG',
  'E_ROLLBACK',
  'E_STALE',
  'E_DOC_HASH',
  'E_DOWNLOAD',
  'E_IMMUTABLE',
  'E_RESOLVE',
  'E_INCOMPATIBLE',
  'E_DENIED',
  'E_ENTITLEMENT',
  'E_LOCKED',
  'E_DEPENDENTS',
  'E_NOT_INSTALLED',
  'E_NOT_FOUND',
  'E_INPUT',
  'E_OUTPUT',
  'E_TIMEOUT',
  'E_OUTPUT_LIMIT',
  'E_RUNTIME_UNSUPPORTED',
  'E_NOT_GRANTED',
  'E_SANDBOX_UNAVAILABLE',
  'E_TOOL',
  'E_PROTOCOL',
  'E_DISABLED',
  'E_POLICY',
  // Not in DESIGN §9's table: usage mistakes and local I/O failures still need a stable code.
  'E_USAGE',
  'E_IO',
  // DESIGN §9: the user or host cancelled a running operation (its AbortSignal fired).
  'E_CANCELLED',
  // A function the host supplied (approve, onProgress, checkTier, a Sandbox) threw or returned
  // something the SDK cannot use; details.callback names it.
  'E_HOST_CALLBACK',
  // Something the user made (or another capability's link) is where a link would go; never overwritten (issue 13).
  'E_CONFLICT',
] as const;

/** One of the stable error codes of DESIGN §9 (ERROR_CODES). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options of `new AdcapError(code, message, options)`. */
export interface AdcapErrorOptions {
  cause?: unknown;
  /** Machine-readable details (a JSON pointer, a path, the versions in conflict...). */
  details?: Readonly<Record<string, unknown>>;
}

/** The one error type of the SDK: a stable `code` (DESIGN §9), a sentence a person can act on, and machine-readable `details`. */
export class AdcapError extends Error {
  override readonly name = 'AdcapError';
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: AdcapErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }

  /** The `{ code, message }` shape used across IPC, `--json` output and the host API. */
  toJSON(): { code: ErrorCode; message: string; details?: Readonly<Record<string, unknown>> } {
    return Object.keys(this.details).length > 0
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** Whether `value` is an AdcapError (of `code`, when given). */
export function isAdcapError(value: unknown, code?: ErrorCode): value is AdcapError {
  return value instanceof AdcapError && (code === undefined || value.code === code);
}

/** Wraps an unexpected failure of the local file system as `E_IO`, keeping AdcapErrors as they are. */
export function asAdcapError(error: unknown, context: string): AdcapError {
  if (error instanceof AdcapError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new AdcapError('E_IO', `${context}: ${detail}`, { cause: error });
}

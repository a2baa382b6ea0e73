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
  // DESIGN §9: a caller's arguments of the wrong shape, and a file-system failure with no better code.
  'E_USAGE',
  'E_IO',
  // DESIGN §9: the user or host cancelled a running operation (its AbortSignal fired).
  'E_CANCELLED',
  // A function the host supplied (approve, onProgress, checkTier, a Sandbox) threw or returned
  // something the SDK cannot use; details.callback names it.
  'E_HOST_CALLBACK',
  // Something the user made (or another capability's link) is where a link would go; never overwritten.
  'E_CONFLICT',
] as const;

/** One of the stable error codes of DESIGN §9 (ERROR_CODES). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options of `new AdcapError(code, message, options)`. */
export interface AdcapErrorOptions {
  /** The underlying error, kept as the standard `Error.cause`. */
  cause?: unknown;
  /** Machine-readable details (a JSON pointer, a path, the versions in conflict...). */
  details?: Readonly<Record<string, unknown>>;
}

/** The one error type of the SDK: a stable `code` (DESIGN §9), a sentence a person can act on, and machine-readable `details`. */
export class AdcapError extends Error {
  /** Always `'AdcapError'`; isAdcapError() tells one from other errors. */
  override readonly name = 'AdcapError';
  /** The stable error code (DESIGN §9) to branch on; the message is for people and may change. */
  readonly code: ErrorCode;
  /** Machine-readable details of the failure (a JSON pointer, a path, the versions in conflict...); `{}` when there are none. */
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

/**
 * The `details` of the codes a host acts on (DESIGN §9), field by field. Every field is optional:
 * a detail is there when the SDK knew it where it failed (a workflow step adds `step`).
 */
export interface ErrorDetailsByCode {
  /** Platform, agent or runtime excludes this host. */
  E_INCOMPATIBLE: {
    /** The capability (and version) refused. */
    id?: string;
    version?: string;
    /** This host's platform, and the platforms a tool supports. */
    platform?: string;
    platforms?: readonly string[];
    /** From a resolution: every needed capability this host cannot run, with the reason. */
    incompatible?: ReadonlyArray<{ id: string; version: string; reason: string }>;
    step?: string;
  };
  /** The organisation's policy forbids this. */
  E_POLICY: {
    /** The policy rule that refused it, and the policy file. */
    rule?: string;
    path?: string;
    step?: string;
  };
  /** Something Arcotheon did not make is where a skill link would go. */
  E_CONFLICT: {
    collisions?: ReadonlyArray<{ skill: string; path: string; owner: string }>;
    /** The ways out a caller can offer: link under another name, skip it, unlink the other. */
    options?: ReadonlyArray<'as' | 'skip' | 'unlink'>;
  };
  /** The tool needs permissions the user has not granted. */
  E_NOT_GRANTED: {
    /** The grants (`id[:scope]`) that are missing. */
    missing?: readonly string[];
    step?: string;
  };
  /** The host's authorize or checkTier callback denied access. */
  E_ENTITLEMENT: {
    id?: string;
    tier?: string;
    access?: string;
    /** What was being fetched when the authoriser said no. */
    kind?: 'package' | 'resource';
    step?: string;
  };
}

/** The details of an error of `code`: typed for the codes of ErrorDetailsByCode, a plain record otherwise. */
export type ErrorDetails<C extends ErrorCode> = C extends keyof ErrorDetailsByCode
  ? Readonly<ErrorDetailsByCode[C]> & Readonly<Record<string, unknown>>
  : Readonly<Record<string, unknown>>;

/** An AdcapError known to carry `code`, with that code's details (what isAdcapError(e, code) narrows to). */
export type AdcapErrorOf<C extends ErrorCode> = AdcapError & { readonly code: C; readonly details: ErrorDetails<C> };

/**
 * Whether `value` is an AdcapError (of `code`, when given). With a code it narrows `details` too:
 * `if (isAdcapError(e, 'E_NOT_GRANTED')) ask(e.details.missing)`.
 */
export function isAdcapError<C extends ErrorCode = ErrorCode>(value: unknown, code?: C): value is AdcapErrorOf<C> {
  return value instanceof AdcapError && (code === undefined || value.code === code);
}

/** Wraps an unexpected failure of the local file system as `E_IO`, keeping AdcapErrors as they are. */
export function asAdcapError(error: unknown, context: string): AdcapError {
  if (error instanceof AdcapError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new AdcapError('E_IO', `${context}: ${detail}`, { cause: error });
}

/**
 * How the host service answers (the host API's Result, electron/common/methods.ts "Rules of the
 * contract"): a value, or a failure with the SDK's stable code (DESIGN §9), the sentence worded for
 * the UI (buttons and screens, never an API call or a terminal command) and its next step. Nothing
 * throws across the boundary, and no stack trace or object with methods crosses it.
 */
import { isAdcapError } from '@arcotheon/sdk';
import { surfaceMessage, uiNextStep } from '@arcotheon/sdk/internal';
import type { HostError, Result } from '../common/types.js';

/** Runs `work` and turns its outcome into a Result; unexpected errors keep only their message. */
export async function settle<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (isAdcapError(error)) {
      const details = plainDetails(error.details);
      const next = uiNextStep(error);
      return failure({
        code: error.code,
        message: surfaceMessage(error, 'ui'),
        ...(next === undefined ? {} : { next }),
        ...(details === undefined ? {} : { details }),
      });
    }
    return failure(unexpected(error));
  }
}

/** E_IO for a failure that is not an AdcapError: only its message crosses the boundary. */
export function unexpected(error: unknown): HostError {
  return { code: 'E_IO', message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}` };
}

/** Error details that are plain JSON (a stderr tail, dependents), never objects with methods. */
function plainDetails(details: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  if (Object.keys(details).length === 0) return undefined;
  try {
    return JSON.parse(JSON.stringify(details)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export function failure(error: HostError): { ok: false; error: HostError } {
  return { ok: false, error };
}

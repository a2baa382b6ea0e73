import { isAdcapError, type AdcapError } from '../../sdk/src/errors.js';

/** The AdcapError a promise rejects with (anything else is rethrown; resolving fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<AdcapError> {
  try {
    await promise;
  } catch (error) {
    if (isAdcapError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection, but it resolved');
}

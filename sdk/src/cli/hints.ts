import { AdcapError } from '../errors.js';

/**
 * What the `adcap` command adds to an SDK error for a person at its prompt (issue 12 item 13).
 * SDK messages speak to any host; where the CLI is the host and the advice depends on it, the CLI
 * says so: it has no sign-in and passes no authorize callback, so it can never obtain an entitled
 * download.
 */
export function withCliHint(error: AdcapError): AdcapError {
  if (error.code === 'E_ENTITLEMENT' && /no authorize callback/.test(error.message)) {
    return new AdcapError(
      error.code,
      `${error.message} The adcap command has no sign-in and passes no authorize callback, ` +
        'so it cannot install or run entitled content; use an app that can.',
      {
        cause: error,
        details: error.details,
      },
    );
  }
  return error;
}

// issue 12 item 13: the CLI tells what it is as a host where an SDK message leaves that open.
import { describe, expect, it } from 'vitest';
import { withCliHint } from '../../../sdk/src/cli/hints.js';
import { AdcapError } from '../../../sdk/src/errors.js';

describe('withCliHint', () => {
  it('adds to "no authorize callback" that the adcap command has no sign-in and cannot obtain entitled content', () => {
    const sdk = new AdcapError(
      'E_ENTITLEMENT',
      'acme/pro@1.0.0 is an entitled download and this host passed no authorize callback, so it cannot obtain access.',
      { details: { id: 'acme/pro' } },
    );
    const cli = withCliHint(sdk);
    expect(cli.code).toBe('E_ENTITLEMENT');
    expect(cli.message).toBe(
      'acme/pro@1.0.0 is an entitled download and this host passed no authorize callback, ' +
        'so it cannot obtain access. The adcap command has no sign-in and passes no authorize callback, ' +
        'so it cannot install or run entitled content; use an app that can.',
    );
    expect(cli.details).toEqual({ id: 'acme/pro' });
    expect(cli.cause).toBe(sdk);
  });

  it('leaves every other error as it is', () => {
    const denied = new AdcapError('E_ENTITLEMENT', 'Access to acme/pro was denied by the authorize callback.');
    expect(withCliHint(denied)).toBe(denied);
    const other = new AdcapError('E_INPUT', 'no authorize callback');
    expect(withCliHint(other)).toBe(other);
  });
});

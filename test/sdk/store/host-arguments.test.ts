// What a host sees when it calls the SDK wrongly or its callbacks fail is an
// AdcapError with a code of its own: E_USAGE for wrong argument types, E_HOST_CALLBACK for an
// approve or onProgress that throws, E_CANCELLED for a cancelled operation (never E_DOWNLOAD),
// E_DENIED only for a plan the user did not approve. AuthorizeFn may answer with a value or a
// promise. Real packages, registry and installs (file:// remote).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdcapError, isAdcapError } from '../../../sdk/src/errors.js';
import { Arcotheon, type ArcotheonOptions } from '../../../sdk/src/store/arcotheon.js';
import { rejection } from '../../helpers/errors.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/small', version: '1.0.0' },
    { id: 'acme/big', version: '1.0.0', padding: 4 * 1024 * 1024 },
    { id: 'acme/paid', version: '1.0.0', distribution: { tier: 'pro', access: 'entitled', entitlement: 'pro' } },
  ]);
});
afterAll(async () => {
  await reg.registry.cleanup();
});

/** The synchronous throw of `fn` as an AdcapError (fails the test for anything else). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('wrong argument types are E_USAGE', () => {
  it.each([
    ['new Arcotheon()', undefined],
    ['new Arcotheon(null)', null],
    ['a missing home', { host: { agent: { id: 'a', version: '1' } } }],
    ['a missing host.agent.version', { home: '/tmp/x', host: { agent: { id: 'a' } } }],
    ['approve-like options that are not functions', { home: '/tmp/x', host: { agent: { id: 'a', version: '1' } }, checkTier: true }],
    ['a sandbox without wrap()', { home: '/tmp/x', host: { agent: { id: 'a', version: '1' } }, sandbox: { use: { name: 'x' } } }],
  ])('%s', (_label, options) => {
    const error = thrown(() => new Arcotheon(options as unknown as ArcotheonOptions));
    expect(isAdcapError(error, 'E_USAGE')).toBe(true);
  });

  it.each([
    ['install(null)', (arc: Arcotheon) => arc.install(null as never)],
    ['install(42)', (arc: Arcotheon) => arc.install(42 as never)],
    ['install([null])', (arc: Arcotheon) => arc.install([null] as never)],
    ['install({ file: 7 })', (arc: Arcotheon) => arc.install({ file: 7 } as never)],
    ['install with approve: true', (arc: Arcotheon) => arc.install('acme/small', { approve: true } as never)],
    ['plan(undefined)', (arc: Arcotheon) => arc.plan(undefined as never)],
    ['update("acme/small")', (arc: Arcotheon) => arc.update('acme/small' as never)],
    ['state(null)', (arc: Arcotheon) => storeOf(arc).state(null as never)],
    ['uninstall({})', (arc: Arcotheon) => arc.uninstall({} as never)],
    ['search(null)', (arc: Arcotheon) => arc.search(null as never)],
  ])('%s', async (_label, call) => {
    const arc = reg.arcotheon(await reg.newHome());
    expect((await rejection(call(arc))).code).toBe('E_USAGE');
  });
});

describe('host callbacks that fail are E_HOST_CALLBACK; a refusal is E_DENIED', () => {
  it('an approve that throws', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    const cause = new Error('dialog crashed');
    const error = await rejection(
      arc.install('acme/small', {
        approve: () => {
          throw cause;
        },
      }),
    );
    expect(error).toMatchObject({ code: 'E_HOST_CALLBACK', cause, details: { callback: 'approve' } });
    expect(await arc.list()).toEqual([]);
    // An AdcapError the host throws on purpose passes through as it is.
    expect((await rejection(arc.install('acme/small', { approve: () => Promise.reject(new AdcapError('E_DENIED', 'no')) }))).code).toBe(
      'E_DENIED',
    );
    expect((await rejection(arc.install('acme/small', { approve: () => false }))).code).toBe('E_DENIED');
  });

  it('an onProgress that throws, whatever it broke underneath', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    const error = await rejection(
      arc.install('acme/big', {
        approve: () => true,
        onProgress: () => {
          throw new Error('renderer is gone');
        },
      }),
    );
    expect(error).toMatchObject({ code: 'E_HOST_CALLBACK', details: { callback: 'onProgress' } });
    expect(await arc.list()).toEqual([]);
  });
});

describe('a cancelled operation is E_CANCELLED', () => {
  it('before it starts and in the middle of a download; nothing is installed', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    expect((await rejection(arc.install('acme/small', { approve: () => true, signal: AbortSignal.abort() }))).code).toBe('E_CANCELLED');
    const controller = new AbortController();
    const error = await rejection(
      arc.install('acme/big', {
        approve: () => true,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.phase === 'download') controller.abort();
        },
      }),
    );
    expect(error.code).toBe('E_CANCELLED');
    expect(await arc.list()).toEqual([]);
    expect((await rejection(arc.update(undefined, { signal: AbortSignal.abort() }))).code).toBe('E_CANCELLED');
  });
});

describe('AuthorizeFn may return a value or a promise', () => {
  it('a synchronous grant installs an entitled package; a synchronous null is E_ENTITLEMENT', async () => {
    const seen: string[] = [];
    const denied = reg.arcotheon(await reg.newHome(), { authorize: () => null });
    expect((await rejection(denied.install('acme/paid', { approve: () => true }))).code).toBe('E_ENTITLEMENT');
    const allowed = reg.arcotheon(await reg.newHome(), {
      authorize: (request) => {
        seen.push(`${request.kind} ${request.id}@${request.version ?? ''} ${request.entitlement ?? ''}`);
        return {};
      },
    });
    expect((await allowed.install('acme/paid', { approve: () => true })).installed).toEqual([{ id: 'acme/paid', version: '1.0.0' }]);
    expect(seen).toEqual(['package acme/paid@1.0.0 pro']);
  });
});

// `net:connect:*.example.com` did not cover the identical requirement, so such
// tools could never run and every update asked again; and the grammar was parsed in several places,
// the enforcing copy being the lenient one. Now one permission table (permissions/table.ts) decides
// grammar, covering, text, risk and enforcement; these properties keep the validator, the grants
// and the sandbox's proxy in agreement.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PermissionId } from '../../../sdk/src/format/manifest-types.js';
import { grantCovers, parseGrant, PERMISSION_IDS, PERMISSION_TABLE } from '../../../sdk/src/permissions/index.js';
import { matchingScope, parseNetScope } from '../../../sdk/src/sandbox/net-proxy.js';
import { interpretGrants, isScopeEnforced } from '../../../sdk/src/sandbox/sandbox.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const RUNS = { numRuns: 2000, seed: 11 };

const label = fc.constantFrom('a', 'b', 'api', 'example', 'com', 'x-y', 'cdn1');
const hostName = fc.array(label, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'));
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const ipv6 = fc.constantFrom('[::1]', '[fe80::1]', '[2001:db8::7]');
const port = fc.oneof(fc.constantFrom(80, 443, 8443), fc.integer({ min: 1, max: 65535 }));
/** Every form of DESIGN §5: host, *.host, host:port, *.host:port, IPv4 and [IPv6] literals. */
const netScope = fc.oneof(
  fc
    .tuple(fc.boolean(), hostName, fc.option(port, { nil: undefined }))
    .map(([wild, host, p]) => `${wild ? '*.' : ''}${host}${p === undefined ? '' : `:${p}`}`),
  fc.tuple(fc.oneof(ipv4, ipv6), fc.option(port, { nil: undefined })).map(([host, p]) => `${host}${p === undefined ? '' : `:${p}`}`),
);
const net6 = (host: string): string => (host.includes(':') ? `[${host}]` : host);
const pathSegment = fc.constantFrom('Documents', 'notes', 'a', '.config', 'data');
const fsScope = fc.oneof(
  fc.constant('workspace'),
  fc
    .tuple(fc.constantFrom('~/', '/'), fc.array(pathSegment, { minLength: 1, maxLength: 3 }))
    .map(([root, segs]) => `${root}${segs.join('/')}`),
);
/** A valid grant string of any id. */
const grant: fc.Arbitrary<string> = fc.oneof(
  fsScope.map((s) => `fs:read:${s}`),
  fsScope.map((s) => `fs:write:${s}`),
  fc.constant('net:connect'),
  netScope.map((s) => `net:connect:${s}`),
  fc.constantFrom('git', 'python3.11', 'g++').map((s) => `process:exec:${s}`),
  fc.constantFrom('GITHUB_TOKEN', '_X').map((s) => `env:read:${s}`),
  fc.constant('storage:data'),
);

describe('wildcard grants match', () => {
  it('the regression: a wildcard grant covers the identical requirement', () => {
    expect(grantCovers('net:connect:*.example.com', 'net:connect:*.example.com')).toBe(true);
    expect(grantCovers('net:connect:*.example.com:443', 'net:connect:*.example.com:443')).toBe(true);
    expect(grantCovers('net:connect:*.example.com', 'net:connect:*.api.example.com')).toBe(true);
    expect(grantCovers('net:connect:*.api.example.com', 'net:connect:*.example.com')).toBe(false);
    expect(grantCovers('net:connect:*.example.com:443', 'net:connect:*.example.com')).toBe(false);
  });

  it("property: every valid grant covers itself (and parses, with the table's grammar)", () => {
    fc.assert(
      fc.property(grant, (g) => {
        expect(() => parseGrant(g)).not.toThrow();
        expect(grantCovers(g, g)).toBe(true);
      }),
      RUNS,
    );
  });

  it("property: covers agrees with the proxy's decision for every host:port request", () => {
    fc.assert(
      fc.property(netScope, fc.oneof(hostName, ipv4, ipv6), port, (scope, host, p) => {
        const covered = grantCovers(`net:connect:${scope}`, `net:connect:${host}:${p}`);
        const allowed = matchingScope([parseNetScope(scope)], host, p) !== null;
        expect(covered).toBe(allowed);
      }),
      RUNS,
    );
  });

  it('property: a narrower requirement is covered, and whatever it lets through the grant lets through too', () => {
    // needed = granted narrowed: a name under a wildcard, a wildcard under a wildcard, a port added.
    const narrowed = fc.tuple(netScope, label, port, fc.nat(3)).map(([granted, extra, p, how]) => {
      const parsed = parseNetScope(granted);
      const host = net6(parsed.host);
      const portText = parsed.port === null ? `:${p}` : `:${parsed.port}`;
      const needed =
        how === 0 || !parsed.wildcard
          ? `${parsed.wildcard ? '*.' : ''}${host}${portText}`
          : how === 1
            ? `${extra}.${host}${parsed.port === null ? '' : portText}`
            : `*.${extra}.${host}${parsed.port === null ? '' : portText}`;
      return { granted, needed };
    });
    fc.assert(
      fc.property(narrowed, fc.oneof(hostName, ipv4, ipv6), port, ({ granted, needed }, host, p) => {
        expect(grantCovers(`net:connect:${granted}`, `net:connect:${needed}`)).toBe(true);
        if (matchingScope([parseNetScope(needed)], host, p) !== null)
          expect(matchingScope([parseNetScope(granted)], host, p)).not.toBeNull();
      }),
      RUNS,
    );
  });

  it("the proxy and the sandbox take exactly the validator's grammar: what it refuses never reaches the network", () => {
    for (const bad of ['*', 'Example.com', 'https://example.com', 'a.*.com', 'example.com:0']) {
      expect(() => parseGrant(`net:connect:${bad}`)).toThrow();
      expect(() => parseNetScope(bad)).toThrow();
    }
    // `net:connect:*` used to mean "any server" inside the sandbox; now only the bare grant does.
    expect(interpretGrants(['net:connect:*'], '/h').net).toBe('scoped');
    expect(interpretGrants(['net:connect'], '/h').net).toBe('any');
  });

  it('the table answers enforcement for the sandbox and text and risk for the dialog, for every id', () => {
    for (const id of PERMISSION_IDS) {
      const kind = PERMISSION_TABLE[id];
      expect(kind.id).toBe(id);
      expect(kind.text(undefined, {}).length).toBeGreaterThan(0);
      expect(['low', 'medium', 'high']).toContain(kind.risk(undefined));
      expect(isScopeEnforced(id, 'bubblewrap')).toBe(kind.enforced(undefined, 'bubblewrap'));
      expect(isScopeEnforced(id, 'none')).toBe(false);
    }
  });

  it("the manifest JSON Schema's permission ids are exactly the table's", () => {
    const schema = JSON.parse(readFileSync(new URL('../../../sdk/schema/capability-1.json', import.meta.url), 'utf8')) as {
      $defs: { permission: { properties: { id: { enum: string[] } } }; grant: { pattern: string } };
    };
    const sorted = (ids: readonly string[]): string[] => [...ids].sort();
    expect(sorted(schema.$defs.permission.properties.id.enum)).toEqual(sorted(Object.keys(PERMISSION_TABLE)));
    const inPattern = /^\^\(([^)]*)\)/.exec(schema.$defs.grant.pattern)?.[1]?.split('|') ?? [];
    expect(sorted(inPattern)).toEqual(sorted(PERMISSION_IDS as PermissionId[]));
  });
});

describe('wildcard grants in the install lifecycle', () => {
  let reg: LifecycleRegistry;
  const wildcard = { id: 'net:connect' as const, scope: '*.example.com', reason: 'Calls the example.com APIs.' };
  beforeAll(async () => {
    reg = await LifecycleRegistry.create();
    await reg.publishAll([{ id: 'acme/net', version: '1.0.0', permissions: [wildcard], tool: true }]);
  });

  it('an update that declares the same wildcard permission does not ask again', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/net@^1.0.0', { approve: () => true });
    await reg.publishAll([{ id: 'acme/net', version: '1.1.0', permissions: [wildcard], tool: true }]);
    expect((await storeOf(arc).state('acme/net')).grants).toEqual(['net:connect:*.example.com']);
    await arc.refreshRemotes();
    const plan = await arc.plan('acme/net@1.1.0');
    expect(plan.newPermissions).toEqual([]);
    const result = await arc.update();
    expect(result).toMatchObject({ applied: true, needsApproval: false });
  });
});

import { describe, expect, it } from 'vitest';
import { checkArguments, HOST_METHODS, METHODS } from '../../../electron/common/methods.js';
import { args, array, json, literal, number, object, optional, string, union } from '../../../electron/common/schema.js';

/** The argument schemas of the host API contract (electron/common/schema.ts, methods.ts). */
describe('schema combinators', () => {
  const point = object({ x: number({ integer: true }), label: optional(string({ min: 1, max: 8 })) });

  it('accepts what fits and names the first problem of what does not', () => {
    expect(point.check({ x: 1 }, 'p')).toBeNull();
    expect(point.check({ x: 1, label: 'a' }, 'p')).toBeNull();
    expect(point.check({ x: 1.5 }, 'p')).toBe('p.x must be a whole number');
    expect(point.check({}, 'p')).toBe('p.x is required');
    expect(point.check({ x: 1, label: '' }, 'p')).toBe('p.label must be a non-empty string');
    expect(point.check({ x: 1, label: 'much too long' }, 'p')).toBe('p.label must be at most 8 characters long');
    expect(point.check([1], 'p')).toBe('p must be an object');
    expect(point.check(null, 'p')).toBe('p must be an object');
  });

  it('refuses unknown members instead of ignoring them (a typo is an error)', () => {
    expect(point.check({ x: 1, lable: 'a' }, 'p')).toMatch(/unknown member "lable"/);
    expect(point.check(JSON.parse('{"x":1,"__proto__":{"polluted":true}}'), 'p')).toMatch(/unknown member "__proto__"/);
  });

  it('checks lists item by item, and their length', () => {
    const ids = array(string({ min: 1 }), { max: 2 });
    expect(ids.check(['a', 'b'], 'ids')).toBeNull();
    expect(ids.check(['a', ''], 'ids')).toBe('ids[1] must be a non-empty string');
    expect(ids.check(['a', 'b', 'c'], 'ids')).toBe('ids must have at most 2 items');
  });

  it('unions and literals', () => {
    const tier = literal('free', 'pro');
    expect(tier.check('pro', 't')).toBeNull();
    expect(tier.check('gold', 't')).toBe('t must be one of "free" | "pro"');
    const idOrList = union(string({ min: 1 }), array(string({ min: 1 })));
    expect(idOrList.check(['a'], 'v')).toBeNull();
    expect(idOrList.check(3, 'v')).toMatch(/^v must be /);
  });

  it('bounds arbitrary JSON (tool inputs) in depth and size', () => {
    const anyJson = json({ maxDepth: 5, maxNodes: 50 });
    expect(anyJson.check({ a: [1, 'two', null, { b: true }] }, 'input')).toBeNull();
    let deep: unknown = 1;
    for (let i = 0; i < 10; i++) deep = [deep];
    expect(anyJson.check(deep, 'input')).toMatch(/nested too deeply/);
    expect(
      anyJson.check(
        Array.from({ length: 60 }, () => 0),
        'input',
      ),
    ).toMatch(/too large/);
    expect(anyJson.check({ n: Number.NaN }, 'input')).toMatch(/not finite/);
  });

  it('positional arguments: required, then optional trailing ones, nothing more', () => {
    const sig = args([string()], [number()]);
    expect(sig.check(['a'], 'args')).toBeNull();
    expect(sig.check(['a', 2], 'args')).toBeNull();
    expect(sig.check(['a', undefined], 'args')).toBeNull();
    expect(sig.check([], 'args')).toMatch(/expects \(string, number\?\), got 0 argument/);
    expect(sig.check(['a', 2, 3], 'args')).toMatch(/got 3 argument/);
    expect(sig.check(['a', 'b'], 'args')).toBe('args[1] must be a number');
    expect(sig.check('a', 'args')).toMatch(/must be a list/);
  });
});

describe('the method table', () => {
  it('names every method namespace.name, once', () => {
    expect(new Set(HOST_METHODS).size).toBe(HOST_METHODS.length);
    for (const method of HOST_METHODS) {
      expect(method).toMatch(/^[a-z]+\.[a-zA-Z]+$/);
      expect(METHODS[method].doc.length).toBeGreaterThan(10);
    }
  });

  it('refuses, before anything runs, what a page must never send', () => {
    const digest = 'a'.repeat(64);
    // Approval is a plan digest, nothing else.
    expect(checkArguments('installs.install', ['acme/echo'])).toMatch(/^installs\.install: expects/);
    expect(checkArguments('installs.install', ['acme/echo', { approvedDigest: 'yes' }])).toMatch(/approvedDigest must be a plan digest/);
    expect(checkArguments('installs.install', ['acme/echo', { approvedDigest: digest, approve: true }])).toMatch(
      /unknown member "approve"/,
    );
    expect(checkArguments('installs.install', ['acme/echo', { approvedDigest: digest }])).toBeNull();
    // Files are sideload handles, never paths.
    expect(checkArguments('installs.plan', [{ file: '/etc/passwd' }])).not.toBeNull();
    expect(checkArguments('installs.plan', [{ sideload: '/tmp/x.adcap' }])).not.toBeNull();
    expect(checkArguments('installs.plan', [{ sideload: 'sl_AAAAAAAAAAAAAAAAAAAAAAAA' }])).toBeNull();
    // Workspaces are handles, never paths.
    expect(checkArguments('run.tool', ['acme/echo', 'main', {}, { workspace: '/home/user' }])).toMatch(/workspace handle/);
    expect(checkArguments('run.tool', ['acme/echo', 'main', {}, { workspace: 'ws_AAAAAAAAAAAAAAAAAAAAAAAA' }])).toBeNull();
    expect(checkArguments('run.tool', ['acme/echo', 'main', {}, { workspace: null }])).toBeNull();
    // Ids, grants and names have their grammar.
    expect(checkArguments('installs.uninstall', ['../../etc'])).toMatch(/capability id/);
    expect(checkArguments('installs.grant', ['acme/echo', 42])).toMatch(/args\[1\] must be a grant/);
    expect(checkArguments('remotes.add', ['Bad Name', 'https://r.example/v1/', ['k']])).toMatch(/remote name/);
    expect(checkArguments('catalogue.index', [{ limit: 0 }])).toMatch(/args\[0\]\.limit must be at least 1/);
    expect(checkArguments('sideload.chunk', ['up_AAAAAAAAAAAAAAAAAAAAAAAA', 0, 'not base64!'])).toMatch(/base64/);
  });
});

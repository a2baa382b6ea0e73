/** spec §7, §11: the runtime table is the one list of runtimes, and the schema agrees with it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  INTERPRETER_RUNTIMES,
  isRuntimeType,
  RUNNABLE_RUNTIMES,
  RUNTIME_TABLE,
  RUNTIME_TYPES,
  runtimeKind,
  type RuntimeType,
} from '../../../sdk/src/format/runtime-table.js';
import { validateManifest } from '../../../sdk/src/format/manifest.js';
import { minimalManifest } from '../../helpers/manifest-fixtures.js';

interface CapabilitySchema {
  properties: { compat: { properties: { runtimes: { properties: Record<string, unknown> } } } };
  $defs: {
    runtime: {
      properties: { type: { enum: string[] } };
      allOf: Array<{ if: { properties: { type: { enum?: string[]; const?: string } } } }>;
    };
  };
}

const schema = JSON.parse(readFileSync(new URL('../../../sdk/schema/capability-1.json', import.meta.url), 'utf8')) as CapabilitySchema;
const sorted = (items: readonly string[]): string[] => [...items].sort();
const ofKind = (kind: string): RuntimeType[] => RUNTIME_TYPES.filter((t) => RUNTIME_TABLE[t].kind === kind);

describe('the runtime table', () => {
  it("the manifest JSON Schema's runtime types are exactly the table's", () => {
    expect(sorted(schema.$defs.runtime.properties.type.enum)).toEqual(sorted(RUNTIME_TYPES));
  });

  it("the schema's interpreter and binary shapes apply to the table's interpreters and binaries", () => {
    const conditions = schema.$defs.runtime.allOf.map((a) => a.if.properties.type);
    const interpreters = conditions.find((c) => c.enum !== undefined)?.enum ?? [];
    const others = conditions.filter((c) => c.const !== undefined).map((c) => c.const as string);
    expect(sorted(interpreters)).toEqual(sorted(INTERPRETER_RUNTIMES));
    expect(sorted(others)).toEqual(sorted([...ofKind('binary'), ...ofKind('mcp')]));
  });

  it("compat.runtimes (spec §11) names exactly the table's interpreters", () => {
    expect(sorted(Object.keys(schema.properties.compat.properties.runtimes.properties))).toEqual(sorted(INTERPRETER_RUNTIMES));
  });

  it('holds the runtimes of spec §7 with their kinds', () => {
    expect(Object.fromEntries(RUNTIME_TYPES.map((t) => [t, runtimeKind(t)]))).toEqual({
      node: 'interpreter',
      python: 'interpreter',
      binary: 'binary',
      mcp: 'mcp',
      wasm: 'reserved',
      http: 'reserved',
    });
    expect(RUNNABLE_RUNTIMES).toEqual(['node', 'python', 'binary', 'mcp']);
    expect(runtimeKind('deno')).toBeUndefined();
    expect(runtimeKind('toString')).toBeUndefined();
    expect(runtimeKind(undefined)).toBeUndefined();
    expect(isRuntimeType('__proto__')).toBe(false);
  });

  it('says how each interpreter is found and started', () => {
    expect(RUNTIME_TABLE.node.program).toBe('node');
    expect(RUNTIME_TABLE.python.program).toBe('python3');
    expect(RUNTIME_TABLE.node.launchArgs('/cap/tools/a.mjs')).toEqual(['/cap/tools/a.mjs']);
    // python: no PYTHON* variables, no user site-packages, no .pyc written into the read-only capability.
    expect(RUNTIME_TABLE.python.launchArgs('/cap/tools/a.py')).toEqual(['-E', '-s', '-B', '/cap/tools/a.py']);
  });

  it('the manifest validator checks each runtime of the table by its kind (entry, entries, server entry, nothing)', () => {
    for (const type of RUNTIME_TYPES) {
      const kind = RUNTIME_TABLE[type].kind;
      const runtime =
        kind === 'interpreter'
          ? { type, entry: 'tools/missing.js' }
          : kind === 'binary'
            ? { type, entries: { 'linux-x64': 'bin/missing' } }
            : kind === 'mcp'
              ? { type, server: { type: 'node', entry: 'server/missing.js' }, tool: 'x' }
              : { type };
      const manifest = { ...minimalManifest(), tools: [{ name: 'x', description: 'A tool.', runtime, inputSchema: { type: 'object' } }] };
      if (kind === 'reserved') expect(() => validateManifest(manifest), type).not.toThrow();
      else expect(() => validateManifest(manifest), type).toThrow(/not in files/);
    }
  });
});

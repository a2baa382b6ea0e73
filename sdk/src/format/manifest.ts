import semver from 'semver';
import { AdcapError } from '../errors.js';
import { grantCovers, grantString } from '../permissions/grants.js';
import { fsWriteTargetsOwnDir, parseFsScope } from '../permissions/scopes.js';
import { scopeProblem } from '../permissions/table.js';
import { escapePointer } from './canonical-json.js';
import { assertSchema, findNonInteger, schemaCompileProblem, schemaValidator } from './json-schema.js';
import { ADCAP_SUPPORTED_MAJOR, type Manifest } from './manifest-types.js';
import { classifyRuntime, isInterpreterRuntime, isMcpRuntime } from './runtime-table.js';

/**
 * The semantic rules of spec §3.2 (and spec §10 for adapters) that `validateManifest` checks after
 * the schema. Each failure is E_SEMANTIC with `details: { rule, pointer }` and a message starting
 * with `[rule] pointer`.
 */
export const MANIFEST_RULES = [
  'unique-ids', // spec §3.2: ids within a list are unique
  'files-reserved', // DESIGN §3: files lists every entry except capability.json and SIGNATURE.json
  'files-sorted', // DESIGN §3 / spec §2: files sorted by path (byte order)
  'file-listed', // spec §3.2: every referenced file is in the package
  'permission-scope', // DESIGN §5: the scope is valid for the id
  'fs-write-own-dir', // spec §3.2: fs:write never targets the capability's own directory
  'tool-permission-declared', // spec §3.2: every tool permission is declared by the capability
  'resource-exists', // spec §3.2: every referenced resource exists
  'semver-range', // spec §3.2: semver ranges parse
  'entitlement-named', // spec §3.2: entitled access names an entitlement
  'adapter-net-permission', // spec §10: an adapter that needs network access has a matching net:connect
  'no-self-dependency', // spec §11: a capability cannot depend on itself
  'mcp-template', // docs/spec/mcp-runtime.md: an mcp server's ${…} name only what the tool is granted
] as const;

export type ManifestRule = (typeof MANIFEST_RULES)[number];

const SCHEMA_FILE = 'capability-1.json';
/** spec §2: these two entries are the archive's own, never listed in `files`. */
const RESERVED_FILES = ['capability.json', 'SIGNATURE.json'];

/**
 * Validates a parsed capability.json (spec §3, §14): the format major, the JSON Schema, then the
 * semantic rules. Returns the same value typed as a Manifest; throws E_VERSION_MAJOR, E_SCHEMA or
 * E_SEMANTIC with a sentence a publisher can act on.
 */
export function validateManifest(value: unknown): Manifest {
  checkFormatVersion(value);
  const nonInteger = findNonInteger(value);
  if (nonInteger !== undefined) {
    throw new AdcapError(
      'E_SCHEMA',
      `The manifest does not match its schema: ${nonInteger || '/'} must be an integer, because signed data holds integers only (integer).`,
      {
        details: { pointer: nonInteger, keyword: 'integer' },
      },
    );
  }
  assertSchema(schemaValidator(SCHEMA_FILE), value, 'The manifest');
  const manifest = value as Manifest;
  checkToolSchemasCompile(manifest);
  checkSemantics(manifest);
  return manifest;
}

/** spec §14: a reader MUST reject a manifest whose major is greater than it supports. */
function checkFormatVersion(value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AdcapError('E_SCHEMA', 'The manifest must be a JSON object (/ must be an object) (type).', {
      details: { pointer: '', keyword: 'type' },
    });
  }
  const adcap = (value as Record<string, unknown>).adcap;
  if (adcap === undefined) {
    throw new AdcapError('E_SCHEMA', 'The manifest does not match its schema: / is missing the required field "adcap" (required).', {
      details: { pointer: '', keyword: 'required' },
    });
  }
  const match = typeof adcap === 'string' ? /^(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$/.exec(adcap) : null;
  if (match === null) {
    throw new AdcapError(
      'E_SCHEMA',
      `The manifest does not match its schema: /adcap must be a format version such as "1.0", not ${JSON.stringify(adcap)} (pattern).`,
      {
        details: { pointer: '/adcap', keyword: 'pattern' },
      },
    );
  }
  const major = Number(match[1]);
  if (major !== ADCAP_SUPPORTED_MAJOR) {
    throw new AdcapError(
      'E_VERSION_MAJOR',
      major > ADCAP_SUPPORTED_MAJOR
        ? `This capability uses format ${String(adcap)}, which is newer than this ` +
            `software supports (major ${ADCAP_SUPPORTED_MAJOR}); update Arcotheon to use it.`
        : `This capability uses format ${String(adcap)}, whose major version this software ` +
            `does not support (major ${ADCAP_SUPPORTED_MAJOR}); rebuild it with a current SDK.`,
      { details: { pointer: '/adcap', adcap, supportedMajor: ADCAP_SUPPORTED_MAJOR } },
    );
  }
}

/** spec §7: the host validates input and output against the tool's schemas, so they must compile. */
function checkToolSchemasCompile(m: Manifest): void {
  m.tools?.forEach((tool, i) => {
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      const schema = tool[key];
      if (schema === undefined) continue;
      const problem = schemaCompileProblem(schema);
      if (problem !== undefined) {
        const pointer = `/tools/${i}/${key}`;
        throw new AdcapError(
          'E_SCHEMA',
          `The manifest does not match its schema: ${pointer} is not a usable JSON Schema: ${problem} (compile).`,
          {
            details: { pointer, keyword: 'compile' },
          },
        );
      }
    }
  });
}

function fail(rule: ManifestRule, pointer: string, problem: string): never {
  throw new AdcapError('E_SEMANTIC', `[${rule}] ${pointer || '/'} ${problem}.`, { details: { rule, pointer } });
}

/**
 * Compares strings by UTF-8 byte order (spec §2 "byte order"), which differs from UTF-16 order for
 * astral characters. UTF-8's byte order is code point order, which UTF-16 code units follow as long
 * as no surrogate is involved, so only a difference at a surrogate (or a string ending in one) is
 * settled by encoding both: 2,000 paths are compared without encoding each of them twice.
 */
function byteCompare(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (isSurrogate(x) || isSurrogate(y)) return utf8Compare(a, b);
    return x < y ? -1 : 1;
  }
  if (a.length === b.length) return 0;
  if (shorter > 0 && isSurrogate(a.charCodeAt(shorter - 1))) return utf8Compare(a, b);
  return a.length < b.length ? -1 : 1;
}

function utf8Compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

function checkSemantics(m: Manifest): void {
  checkUniqueIds(m);
  checkFiles(m);
  checkFileReferences(m);
  checkPermissions(m);
  checkResourceReferences(m);
  checkSemverRanges(m);
  checkEntitlements(m);
  checkAdapters(m);
  checkDependencies(m);
  checkMcpTemplates(m);
}

/** spec §3.2: ids within a list are unique. */
function checkUniqueIds(m: Manifest): void {
  const lists: [string, string, string[]][] = [
    ['/tools', 'name', (m.tools ?? []).map((t) => t.name)],
    ['/resources', 'id', (m.resources ?? []).map((r) => r.id)],
    ['/knowledge', 'id', (m.knowledge ?? []).map((k) => k.id)],
    ['/adapters', 'id', (m.adapters ?? []).map((a) => a.id)],
    ['/workflows', 'path', (m.workflows ?? []).map((w) => w.path)],
    ['/skills', 'path', (m.skills ?? []).map((s) => s.path)],
    ['/permissions', 'id and scope', (m.permissions ?? []).map((p) => grantString(p))],
    ['/files', 'path', m.files.map((f) => f.path)],
  ];
  for (const [pointer, what, keys] of lists) {
    const seen = new Map<string, number>();
    keys.forEach((key, index) => {
      const earlier = seen.get(key);
      if (earlier !== undefined)
        fail(
          'unique-ids',
          `${pointer}/${index}`,
          `repeats the ${what} ${JSON.stringify(key)} of ${pointer}/${earlier}; each must be unique`,
        );
      seen.set(key, index);
    });
  }
}

/** DESIGN §3: `files` excludes the archive's own entries and is sorted by path in byte order. */
function checkFiles(m: Manifest): void {
  m.files.forEach((file, index) => {
    if (RESERVED_FILES.includes(file.path)) {
      fail(
        'files-reserved',
        `/files/${index}/path`,
        `lists ${file.path}, which is part of the archive itself and must not appear in files`,
      );
    }
    const previous = index > 0 ? m.files[index - 1] : undefined;
    if (previous !== undefined && byteCompare(previous.path, file.path) > 0) {
      fail(
        'files-sorted',
        `/files/${index}/path`,
        `comes before ${JSON.stringify(previous.path)} in byte order; files must be sorted by path`,
      );
    }
  });
}

/** spec §3.2: every referenced file is in the package (runtime entries, skills, workflows, knowledge, icon, readme). */
function checkFileReferences(m: Manifest): void {
  const files = new Set(m.files.map((f) => f.path));
  const need = (pointer: string, path: string, what: string): void => {
    if (!files.has(path)) fail('file-listed', pointer, `refers to ${what} ${JSON.stringify(path)}, which is not in files`);
  };
  m.tools?.forEach((tool, i) => {
    const classified = classifyRuntime(tool.runtime);
    switch (classified.kind) {
      case 'interpreter':
        need(`/tools/${i}/runtime/entry`, classified.runtime.entry, 'the entry file');
        break;
      case 'binary':
        for (const [platform, entry] of Object.entries(classified.runtime.entries)) {
          need(`/tools/${i}/runtime/entries/${escapePointer(platform)}`, entry, `the ${platform} executable`);
        }
        break;
      case 'mcp': {
        const server = classified.runtime.server;
        if ('entries' in server) {
          for (const [platform, entry] of Object.entries(server.entries)) {
            need(`/tools/${i}/runtime/server/entries/${escapePointer(platform)}`, entry, `the ${platform} MCP server executable`);
          }
        } else need(`/tools/${i}/runtime/server/entry`, server.entry, 'the MCP server entry file');
        break;
      }
      case 'reserved':
        break;
    }
  });
  // spec §3.1: each skills[].path is a directory containing SKILL.md.
  m.skills?.forEach((skill, i) => need(`/skills/${i}/path`, `${skill.path}/SKILL.md`, 'the skill file'));
  m.workflows?.forEach((workflow, i) => need(`/workflows/${i}/path`, workflow.path, 'the workflow document'));
  m.knowledge?.forEach((entry, i) => {
    if (entry.path === undefined) return;
    // A shipped knowledge entry is a file, or a folder (an index) holding at least one file.
    const prefix = `${entry.path}/`;
    if (!files.has(entry.path) && !m.files.some((f) => f.path.startsWith(prefix))) {
      fail('file-listed', `/knowledge/${i}/path`, `refers to ${JSON.stringify(entry.path)}, which is neither a file nor a folder in files`);
    }
  });
  if (m.icon !== undefined) need('/icon', m.icon, 'the icon');
  if (m.readme !== undefined) need('/readme', m.readme, 'the readme');
}

/** DESIGN §5 scopes, spec §3.2 fs:write rule, and tool permissions declared by the capability. */
function checkPermissions(m: Manifest): void {
  const declared = new Set<string>();
  m.permissions?.forEach((permission, i) => {
    const problem = scopeProblem(permission.id, permission.scope);
    if (problem !== undefined) fail('permission-scope', `/permissions/${i}`, `is invalid: ${problem}`);
    if (permission.id === 'fs:write' && permission.scope !== undefined) {
      const scope = parseFsScope(permission.scope);
      if (typeof scope !== 'string' && fsWriteTargetsOwnDir(scope)) {
        fail(
          'fs-write-own-dir',
          `/permissions/${i}/scope`,
          `lets tools write ${JSON.stringify(permission.scope)}, which covers where capabilities ` +
            'are installed; a capability may never write its own directory, so choose a narrower folder',
        );
      }
    }
    declared.add(grantString(permission));
  });
  m.tools?.forEach((tool, i) => {
    tool.permissions?.forEach((grant, j) => {
      if (!declared.has(grant)) {
        fail(
          'tool-permission-declared',
          `/tools/${i}/permissions/${j}`,
          `asks for ${JSON.stringify(grant)}, which the capability does not declare in permissions; ` +
            'declare it there with a reason (same id and scope)',
        );
      }
    });
  });
}

/** spec §3.2: every referenced resource exists. */
function checkResourceReferences(m: Manifest): void {
  const ids = new Set((m.resources ?? []).map((r) => r.id));
  const need = (pointer: string, id: string): void => {
    if (!ids.has(id)) fail('resource-exists', pointer, `refers to the resource ${JSON.stringify(id)}, which is not declared in resources`);
  };
  m.tools?.forEach((tool, i) => tool.resources?.forEach((id, j) => need(`/tools/${i}/resources/${j}`, id)));
  m.knowledge?.forEach((entry, i) => {
    if (entry.resource !== undefined) need(`/knowledge/${i}/resource`, entry.resource);
  });
  m.adapters?.forEach((adapter, i) => {
    if (adapter.resource !== undefined) need(`/adapters/${i}/resource`, adapter.resource);
  });
}

/** spec §3.2: semver ranges parse (dependencies, compat.agents, compat.runtimes, runtime.version). */
function checkSemverRanges(m: Manifest): void {
  const need = (pointer: string, range: string): void => {
    if (semver.validRange(range) === null)
      fail('semver-range', pointer, `is ${JSON.stringify(range)}, which is not a semver range such as "^1.2.0" or ">=18"`);
  };
  for (const [id, range] of Object.entries(m.dependencies ?? {})) need(`/dependencies/${escapePointer(id)}`, range);
  for (const [host, range] of Object.entries(m.compat?.agents ?? {})) need(`/compat/agents/${escapePointer(host)}`, range);
  for (const [runtime, range] of Object.entries(m.compat?.runtimes ?? {})) need(`/compat/runtimes/${escapePointer(runtime)}`, range);
  m.tools?.forEach((tool, i) => {
    if (isInterpreterRuntime(tool.runtime) && typeof tool.runtime.version === 'string')
      need(`/tools/${i}/runtime/version`, tool.runtime.version);
    if (isMcpRuntime(tool.runtime) && 'version' in tool.runtime.server && typeof tool.runtime.server.version === 'string')
      need(`/tools/${i}/runtime/server/version`, tool.runtime.server.version);
  });
}

/** `${…}` in an mcp server's args and env: `dir`, `workspace` and `env.NAME`. */
export const MCP_TEMPLATE = /\$\{([^{}]*)\}/g;

/**
 * docs/spec/mcp-runtime.md: a server's `args` and `env` may say `${dir}`, `${workspace}` (when the
 * tool declares fs:read:workspace or fs:write:workspace) and `${env.NAME}` (when it declares
 * env:read:NAME), nothing else: what a server is given at run time is what its tool is granted.
 */
function checkMcpTemplates(m: Manifest): void {
  m.tools?.forEach((tool, i) => {
    if (!isMcpRuntime(tool.runtime)) return;
    const declared = tool.permissions ?? [];
    const texts: Array<[string, string]> = [
      ...(tool.runtime.server.args ?? []).map((text, j): [string, string] => [`/tools/${i}/runtime/server/args/${j}`, text]),
      ...Object.entries(tool.runtime.server.env ?? {}).map(([name, text]): [string, string] => [
        `/tools/${i}/runtime/server/env/${escapePointer(name)}`,
        text,
      ]),
    ];
    for (const name of Object.keys(tool.runtime.server.env ?? {})) {
      // The sandbox sets these itself (DESIGN §5: PATH, LANG, HOME, TMPDIR; the proxy's variables).
      if (/^(PATH|LANG|HOME|TMPDIR|(HTTPS?|ALL|NO)_PROXY)$/i.test(name)) {
        fail('mcp-template', `/tools/${i}/runtime/server/env/${escapePointer(name)}`, `sets ${name}, which the sandbox sets itself`);
      }
    }
    for (const [pointer, text] of texts) {
      for (const match of text.matchAll(MCP_TEMPLATE)) {
        const name = match[1] ?? '';
        if (name === 'dir') continue;
        if (name === 'workspace') {
          if (!declared.some((g) => g === 'fs:read:workspace' || g === 'fs:write:workspace')) {
            fail('mcp-template', pointer, 'says ${workspace}, but the tool declares neither fs:read:workspace nor fs:write:workspace');
          }
          continue;
        }
        if (name.startsWith('env.')) {
          const variable = name.slice('env.'.length);
          if (!declared.includes(`env:read:${variable}`)) {
            fail(
              'mcp-template',
              pointer,
              `says \${${name}}, but the tool does not declare env:read:${variable}; declare it or remove the reference`,
            );
          }
          continue;
        }
        fail('mcp-template', pointer, `says \${${name}}, which is not \${dir}, \${workspace} or \${env.NAME}`);
      }
    }
  });
}

/** spec §3.2 / §12: entitled access names an entitlement. */
function checkEntitlements(m: Manifest): void {
  if (m.distribution?.access === 'entitled' && m.distribution.entitlement === undefined) {
    fail('entitlement-named', '/distribution', 'has access "entitled" but no entitlement; name the entitlement the host must check');
  }
  m.resources?.forEach((resource, i) => {
    if (resource.access === 'entitled' && resource.entitlement === undefined) {
      fail('entitlement-named', `/resources/${i}`, 'has access "entitled" but no entitlement; name the entitlement the host must check');
    }
  });
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/** spec §10: an adapter that needs network access must have a matching net:connect permission. */
function checkAdapters(m: Manifest): void {
  const netGrants = (m.permissions ?? []).filter((p) => p.id === 'net:connect').map((p) => grantString(p));
  m.adapters?.forEach((adapter, i) => {
    if (adapter.endpoint === undefined) return;
    const url = new URL(adapter.endpoint);
    const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
    const needed = `net:connect:${url.hostname}${port === undefined ? '' : `:${port}`}`;
    if (!netGrants.some((granted) => grantCovers(granted, needed))) {
      fail(
        'adapter-net-permission',
        `/adapters/${i}/endpoint`,
        `connects to ${url.host}, but no net:connect permission covers it; ` +
          `declare net:connect with the scope ${JSON.stringify(url.hostname)}`,
      );
    }
  });
}

/** spec §11: dependencies name other capabilities. */
function checkDependencies(m: Manifest): void {
  if (m.dependencies !== undefined && Object.hasOwn(m.dependencies, m.id)) {
    fail('no-self-dependency', `/dependencies/${escapePointer(m.id)}`, 'makes the capability depend on itself; remove it');
  }
}

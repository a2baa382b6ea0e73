/**
 * Small builders for valid manifests, shared by the format, archive, store and run tests.
 * `minimalManifest(overrides)` returns a manifest that passes `validateManifest`, with a `files`
 * list computed from the files it references (unless `files` is overridden), and
 * `fixtureFileContents(manifest)` returns the bytes those `files` entries were hashed from, so a
 * test can write the directory or archive that matches the manifest.
 */
import { createHash } from 'node:crypto';
import { AdcapError } from '../../sdk/src/errors.js';
import type { FileEntry, Manifest, Resource, Tool } from '../../sdk/src/format/manifest-types.js';

export const FIXTURE_ID = 'acme/demo';

/** A valid node tool named `name` whose entry is `tools/<name>.mjs`. */
export function nodeTool(name = 'echo', overrides: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `The ${name} tool.`,
    runtime: { type: 'node', entry: `tools/${name}.mjs` },
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    ...overrides,
  };
}

/** The default content of a referenced file, valid for what refers to it. */
function defaultContent(path: string): string {
  if (path.endsWith('/SKILL.md')) {
    const dir = path.slice(0, -'/SKILL.md'.length);
    const name = dir.slice(dir.lastIndexOf('/') + 1);
    return `---\nname: ${name}\ndescription: The ${name} skill for tests.\n---\n\n# ${name}\n`;
  }
  if (path.endsWith('.json') && path.startsWith('workflows/')) {
    const id = path.slice(path.lastIndexOf('/') + 1, -'.json'.length);
    return `${JSON.stringify({ 'adcap-workflow': '1.0', id, steps: [{ id: 'ask', agent: 'Say hello.' }] })}\n`;
  }
  if (path.endsWith('.mjs') || path.endsWith('.js')) {
    return 'process.stdin.on("data", () => process.stdout.write(JSON.stringify({ type: "result", output: {} }) + "\\n"));\n';
  }
  return `fixture content of ${path}\n`;
}

/** Every package path the manifest refers to (entries, SKILL.md, workflows, knowledge, icon, readme). */
export function referencedPaths(m: Omit<Manifest, 'files'>): string[] {
  const paths = new Set<string>();
  for (const tool of m.tools ?? []) {
    const runtime = tool.runtime as { type: string; entry?: unknown; entries?: Record<string, unknown> };
    if (typeof runtime.entry === 'string') paths.add(runtime.entry);
    for (const entry of Object.values(runtime.entries ?? {})) if (typeof entry === 'string') paths.add(entry);
  }
  for (const skill of m.skills ?? []) paths.add(`${skill.path}/SKILL.md`);
  for (const workflow of m.workflows ?? []) paths.add(workflow.path);
  for (const entry of m.knowledge ?? []) if (entry.path !== undefined) paths.add(entry.path);
  if (m.icon !== undefined) paths.add(m.icon);
  if (m.readme !== undefined) paths.add(m.readme);
  return [...paths];
}

const contents = new WeakMap<object, Map<string, string>>();

export function sha256Of(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A `files` entry for `path` with the given content (default: the fixture content for that path). */
export function fileEntry(path: string, content: string = defaultContent(path), executable = false): FileEntry {
  const entry: FileEntry = { path, sha256: sha256Of(content), size: Buffer.byteLength(content) };
  if (executable) entry.executable = true;
  return entry;
}

/** Sorts file entries by path in byte order, as spec §2 / DESIGN §3 require. */
export function sortFiles(files: FileEntry[]): FileEntry[] {
  return [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/**
 * A valid manifest. Overrides replace top-level fields; `files` (when not overridden) lists every
 * referenced file plus `extraFiles`, hashed from fixture content (see `fixtureFileContents`).
 */
export function minimalManifest(overrides: Partial<Manifest> = {}, extraFiles: Record<string, string> = {}): Manifest {
  const base: Omit<Manifest, 'files'> = {
    adcap: '1.0',
    id: FIXTURE_ID,
    version: '1.0.0',
    name: 'Demo',
    summary: 'A demo capability for tests.',
  };
  const { files: filesOverride, ...rest } = overrides;
  const merged = { ...base, ...rest };
  const content = new Map<string, string>();
  for (const path of referencedPaths(merged)) content.set(path, defaultContent(path));
  for (const [path, text] of Object.entries(extraFiles)) content.set(path, text);
  const files = filesOverride ?? sortFiles([...content].map(([path, text]) => fileEntry(path, text)));
  const manifest: Manifest = { ...merged, files };
  contents.set(manifest, content);
  return manifest;
}

/** The file contents a manifest made by `minimalManifest` was hashed from (path -> text). */
export function fixtureFileContents(manifest: Manifest): Map<string, string> {
  const known = contents.get(manifest);
  if (known !== undefined) return new Map(known);
  return new Map(manifest.files.map((f) => [f.path, defaultContent(f.path)]));
}

/** A deep copy, so a test can mutate one manifest without touching another. */
export function cloneManifest<T>(value: T): T {
  return structuredClone(value);
}

/** A valid public resource `id` (pinned by a made-up digest). */
export function resource(id = 'dataset', overrides: Partial<Resource> = {}): Resource {
  return { id, kind: 'dataset', sources: [`https://data.example.com/${id}.bin`], sha256: sha256Of(id), size: 1024, ...overrides };
}

/** Runs `fn` and returns the AdcapError it throws; fails the test when it returns or throws anything else. */
export function captureAdcapError(fn: () => unknown): AdcapError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AdcapError) return error;
    throw error;
  }
  throw new Error('expected an AdcapError, but the call succeeded');
}

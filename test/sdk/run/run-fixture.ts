// Shared setup for the run tests: real packages built from test/fixtures/tools/, sideloaded into a
// temp home through the lead's install lifecycle, and an Arcotheon that runs them under real
// bubblewrap (the platform default) unless a test says otherwise.
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Manifest, Permission, Resource, Tool } from '../../../sdk/src/format/manifest-types.js';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import { Arcotheon, type ArcotheonOptions } from '../../../sdk/src/store/arcotheon.js';
import type { KeyFile } from '../../../sdk/src/trust/keys.js';
import { buildSignedPackage } from '../../../sdk/src/trust/package-signature.js';

export const TOOLS_DIR = fileURLToPath(new URL('../../fixtures/tools/', import.meta.url));
export const PROBE_DIR = fileURLToPath(new URL('../../fixtures/probe/', import.meta.url));
export const AGENT = { id: 'test', version: '1.0.0' } as const;

export interface CapabilityFixture {
  id: string;
  version?: string;
  tools?: Tool[];
  permissions?: Permission[];
  resources?: Resource[];
  dependencies?: Record<string, string>;
  /** workflows/<id>.json documents. */
  workflows?: Array<Record<string, unknown>>;
  distribution?: Manifest['distribution'];
  /** Package path -> fixture file name in test/fixtures/tools (or probe/), or `{ text }`. */
  files?: Record<string, string | { text: string; executable?: boolean }>;
}

/** A node tool running tools/<file>. */
export function nodeTool(name: string, file: string, extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `The ${name} tool.`,
    runtime: { type: 'node', entry: `tools/${file}` },
    inputSchema: { type: 'object' },
    ...extra,
  };
}

export class RunHome {
  private constructor(
    readonly root: string,
    readonly home: string,
  ) {}

  static async create(): Promise<RunHome> {
    const root = await mkdtemp(join(tmpdir(), 'adcap-run-test-'));
    const home = join(root, 'home');
    await mkdir(home, { recursive: true });
    return new RunHome(root, home);
  }

  arc(extra: Partial<ArcotheonOptions> = {}): Arcotheon {
    return new Arcotheon({ home: this.home, host: { agent: AGENT }, ...extra });
  }

  /** Builds the capability from fixtures into a package file, signed with `keys` (unsigned without). */
  async build(spec: CapabilityFixture, keys: KeyFile[] = []): Promise<string> {
    const version = spec.version ?? '1.0.0';
    const src = join(this.root, 'src', `${spec.id.replace('/', '__')}-${version}-${Math.random().toString(36).slice(2, 8)}`);
    await mkdir(src, { recursive: true });
    const manifest: Record<string, unknown> = {
      adcap: '1.0',
      id: spec.id,
      version,
      name: `Test ${spec.id}`,
      summary: `Test capability ${spec.id}`,
      compat: { agents: { [AGENT.id]: '*' } },
    };
    if (spec.tools !== undefined) manifest['tools'] = spec.tools;
    if (spec.permissions !== undefined) manifest['permissions'] = spec.permissions;
    if (spec.resources !== undefined) manifest['resources'] = spec.resources;
    if (spec.dependencies !== undefined) manifest['dependencies'] = spec.dependencies;
    if (spec.distribution !== undefined) manifest['distribution'] = spec.distribution;
    if (spec.workflows !== undefined) {
      manifest['workflows'] = spec.workflows.map((w) => ({ path: `workflows/${String(w['id'])}.json` }));
      await mkdir(join(src, 'workflows'), { recursive: true });
      for (const w of spec.workflows) await writeFile(join(src, 'workflows', `${String(w['id'])}.json`), JSON.stringify(w, null, 2));
    }
    for (const [pkgPath, from] of Object.entries(spec.files ?? {})) {
      const target = join(src, ...pkgPath.split('/'));
      await mkdir(dirname(target), { recursive: true });
      if (typeof from === 'string') {
        await copyFile(join(from === 'probe.mjs' ? PROBE_DIR : TOOLS_DIR, from), target);
        if (from.endsWith('.sh')) await chmod(target, 0o755);
      } else {
        await writeFile(target, from.text);
        if (from.executable === true) await chmod(target, 0o755);
      }
    }
    await writeFile(join(src, 'capability.json'), JSON.stringify(manifest, null, 2));
    const out = join(this.root, 'out', `${spec.id.replace('/', '__')}-${version}-${Math.random().toString(36).slice(2, 8)}.adcap`);
    await mkdir(dirname(out), { recursive: true });
    if (keys.length === 0) await buildPackage(src, { out });
    else await buildSignedPackage(src, { out, keys });
    return out;
  }

  /** Builds and sideloads the capability; the approval grants every permission it declares. */
  async install(spec: CapabilityFixture, arc: Arcotheon = this.arc()): Promise<void> {
    const file = await this.build(spec);
    await arc.install({ file }, { approve: () => true, allowUnsigned: true });
  }

  /** The lines of this month's audit log of the home (home/audit/<yyyy-mm>.jsonl), none when there is none. */
  auditLines(): string[] {
    const file = join(this.home, 'audit', `${new Date().toISOString().slice(0, 7)}.jsonl`);
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/** Awaits a promise that must reject, and returns the rejection (the shared helper). */
export { rejection as rejectionOf } from '../../helpers/errors.js';

/**
 * A test registry of capabilities with dependencies, permissions and tools, for the install
 * lifecycle tests. Real packages, built and signed by the SDK, published and catalogued
 * by the real registry builder; installs go through a real `Arcotheon` over file:// remotes.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publishPackage } from '../../sdk/src/registry/builder/publish.js';
import { Arcotheon, type ArcotheonOptions } from '../../sdk/src/store/arcotheon.js';
import { buildSignedPackage } from '../../sdk/src/trust/package-signature.js';
import type { Permission, Resource } from '../../sdk/src/format/manifest-types.js';
import { TestRegistry } from './test-registry.js';

export interface CapabilitySpec {
  id: string;
  version: string;
  dependencies?: Record<string, string>;
  permissions?: Permission[];
  /** Adds a node tool `main` that uses every declared permission. */
  tool?: boolean;
  compat?: Record<string, unknown>;
  /** Extra bytes, to make a package bigger (progress and crash tests). */
  padding?: number;
  /** Resources declared by the manifest (spec §9). */
  resources?: Resource[];
  /** spec §12 distribution metadata (tier, access, entitlement). */
  distribution?: Record<string, unknown>;
}

export const HOST = { platform: 'linux-x64', agent: { id: 'arcotheon', version: '1.0.0' } } as const;

export class LifecycleRegistry {
  private constructor(readonly registry: TestRegistry) {}

  static async create(): Promise<LifecycleRegistry> {
    const registry = await TestRegistry.create();
    return new LifecycleRegistry(registry);
  }

  /** Builds, signs and publishes one capability version (its publisher is added on first use). */
  async publish(spec: CapabilitySpec): Promise<string> {
    const publisher = spec.id.split('/')[0] as string;
    if (!this.registry.publisherKeys.has(publisher)) await this.registry.addPublisher(publisher);
    const file = await buildCapability(spec, join(this.registry.work, 'lifecycle'), [this.registry.keyOf(publisher)]);
    await publishPackage(this.registry.dir, file);
    return file;
  }

  async publishAll(specs: CapabilitySpec[]): Promise<void> {
    for (const spec of specs) await this.publish(spec);
    await this.registry.build();
  }

  async newHome(): Promise<string> {
    return mkdtemp(join(tmpdir(), 'adcap-home-'));
  }

  options(home: string, extra: Partial<ArcotheonOptions> = {}): ArcotheonOptions {
    return {
      home,
      host: HOST,
      remotes: [{ name: 'test', url: this.registry.v1Url, rootKeys: [this.registry.rootKey.publicKey] }],
      runtimes: { node: '22.12.0', python: '3.11.7' },
      limits: { lockWaitMs: 60_000 },
      ...extra,
    };
  }

  arcotheon(home: string, extra: Partial<ArcotheonOptions> = {}): Arcotheon {
    return new Arcotheon(this.options(home, extra));
  }
}

/** Writes a capability source directory and builds it (signed with `keys`, unsigned when empty). */
export async function buildCapability(
  spec: CapabilitySpec,
  workDir: string,
  keys: Parameters<typeof buildSignedPackage>[1]['keys'],
): Promise<string> {
  const slug = `${spec.id.replace('/', '__')}-${spec.version}-${Math.random().toString(36).slice(2, 8)}`;
  const src = join(workDir, 'src', slug);
  await mkdir(src, { recursive: true });
  const permissions = spec.permissions ?? [];
  const manifest: Record<string, unknown> = {
    adcap: '1.0',
    id: spec.id,
    version: spec.version,
    name: `Test ${spec.id}`,
    summary: `Test capability ${spec.id} ${spec.version}`,
    readme: 'README.md',
    ...(permissions.length > 0 ? { permissions } : {}),
    ...(spec.dependencies === undefined ? {} : { dependencies: spec.dependencies }),
    ...(spec.resources === undefined ? {} : { resources: spec.resources }),
    ...(spec.distribution === undefined ? {} : { distribution: spec.distribution }),
    compat: spec.compat ?? { agents: { arcotheon: '*' } },
  };
  if (spec.tool === true) {
    manifest['tools'] = [
      {
        name: 'main',
        description: 'Echoes its input.',
        runtime: { type: 'node', entry: 'tools/main.mjs' },
        inputSchema: { type: 'object' },
        ...(permissions.length > 0 ? { permissions: permissions.map((p) => (p.scope === undefined ? p.id : `${p.id}:${p.scope}`)) } : {}),
      },
    ];
    await mkdir(join(src, 'tools'), { recursive: true });
    await writeFile(
      join(src, 'tools', 'main.mjs'),
      "import { createInterface } from 'node:readline';\n" +
        'for await (const line of createInterface({ input: process.stdin })) {\n' +
        '  const call = JSON.parse(line);\n  process.stdout.write(JSON.stringify({ type: ' +
        "'result', output: call.input }) + '\\n');\n  break;\n}\n",
    );
  }
  await writeFile(join(src, 'capability.json'), JSON.stringify(manifest, null, 2));
  await writeFile(join(src, 'README.md'), `# ${spec.id} ${spec.version}\n`);
  // Incompressible padding, so download and extraction take real time (progress and crash tests).
  if ((spec.padding ?? 0) > 0) await writeFile(join(src, 'padding.bin'), randomBytes(spec.padding ?? 0));
  const out = join(workDir, 'out', `${slug}.adcap`);
  await mkdir(join(workDir, 'out'), { recursive: true });
  if (keys.length === 0) {
    const { buildPackage } = await import('../../sdk/src/format/package-build.js');
    await buildPackage(src, { out });
  } else {
    await buildSignedPackage(src, { out, keys });
  }
  return out;
}

/**
 * A signed test registry served over HTTPS with the test CA (test/helpers), for the UI journeys:
 * capabilities are written as source folders (manifest, tools, workflows, readme), built and
 * signed by the real SDK, published and catalogued by the real registry builder. `arcotheon ui`
 * trusts the test CA through NODE_EXTRA_CA_CERTS, like the other e2e child processes.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import { publishPackage } from '../../../sdk/src/registry/builder/publish.js';
import { buildSignedPackage } from '../../../sdk/src/trust/package-signature.js';
import { TestRegistry } from '../../../test/helpers/test-registry.js';
import { TestServer } from '../../../test/helpers/test-server.js';
import { testTls } from '../../../test/helpers/tls.js';
import { adcap, ok } from '../../helpers/adcap.js';

export interface CapabilitySource {
  /** capability.json as the author writes it (files are computed by the builder). */
  manifest: Record<string, unknown> & { id: string; version: string };
  /** Other files, path -> text. */
  files?: Record<string, string>;
}

/** A node tool speaking the tool protocol: answers with `output(input)` (a JS expression of `input`). */
export function nodeTool(outputExpression: string): string {
  return [
    "import { createInterface } from 'node:readline';",
    'for await (const line of createInterface({ input: process.stdin })) {',
    '  const call = JSON.parse(line);',
    '  const input = call.input;',
    `  process.stdout.write(JSON.stringify({ type: 'result', output: ${outputExpression} }) + '\\n');`,
    '  break;',
    '}',
    '',
  ].join('\n');
}

export class UiRegistry {
  private constructor(
    readonly registry: TestRegistry,
    readonly server: TestServer,
    readonly url: string,
  ) {}

  static async create(): Promise<UiRegistry> {
    const registry = await TestRegistry.create({ name: 'ui-test' });
    const server = await TestServer.start({ protocol: 'https' });
    await registry.build();
    const url = await registry.mount(server);
    return new UiRegistry(registry, server, url);
  }

  /** The environment every child (arcotheon ui, adcap) needs to trust the test CA. */
  get env(): NodeJS.ProcessEnv {
    return { NODE_EXTRA_CA_CERTS: testTls().caPath, ARCOTHEON_EMBEDDED_REGISTRY: '' };
  }

  /** Writes a capability's source folder and builds it, signed by its publisher (or unsigned). */
  async build(source: CapabilitySource, options: { unsigned?: boolean } = {}): Promise<string> {
    const { id, version } = source.manifest;
    const slug = `${id.replace('/', '__')}-${version}-${Math.random().toString(36).slice(2, 8)}`;
    const dir = join(this.registry.work, 'ui-src', slug);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'capability.json'), JSON.stringify(source.manifest, null, 2));
    for (const [path, text] of Object.entries(source.files ?? {})) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const out = join(this.registry.work, 'ui-out', `${slug}.adcap`);
    await mkdir(dirname(out), { recursive: true });
    if (options.unsigned === true) {
      await buildPackage(dir, { out });
    } else {
      const publisher = id.split('/')[0] as string;
      if (!this.registry.publisherKeys.has(publisher)) await this.registry.addPublisher(publisher);
      await buildSignedPackage(dir, { out, keys: [this.registry.keyOf(publisher)] });
    }
    return out;
  }

  /** Builds, signs, publishes, rebuilds the catalogue and serves the new files. */
  async publish(...sources: CapabilitySource[]): Promise<void> {
    for (const source of sources) await publishPackage(this.registry.dir, await this.build(source));
    await this.registry.build();
    await this.registry.mount(this.server);
  }

  /** A fresh home with this registry as its only remote (`adcap remote add`, the real CLI). */
  async newHome(): Promise<string> {
    const home = await mkdtemp(join(tmpdir(), 'arcotheon-ui-home-'));
    ok(
      await adcap(['remote', 'add', 'test', this.url, '--root-key', this.registry.rootKey.publicKey, '--home', home], {
        env: { ...process.env, ...this.env },
      }),
    );
    return home;
  }

  /** `adcap <args> --json --home <home>`, parsed. */
  async adcapJson<T>(home: string, args: string[]): Promise<T> {
    const run = ok(await adcap([...args, '--json', '--home', home], { env: { ...process.env, ...this.env } }));
    return JSON.parse(run.stdout) as T;
  }

  /** Like adcapJson, for commands that exit 1 with a JSON report (`doctor` finding problems). */
  async adcapReport<T>(home: string, args: string[]): Promise<T> {
    const run = await adcap([...args, '--json', '--home', home], { env: { ...process.env, ...this.env } });
    return JSON.parse(run.stdout) as T;
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.registry.cleanup();
  }
}

/** Skeleton manifest fields every test capability shares. */
export function manifest(id: string, version: string, fields: Record<string, unknown> = {}): CapabilitySource['manifest'] {
  return {
    adcap: '1.0',
    id,
    version,
    name: `Test ${id}`,
    summary: `Test capability ${id}`,
    compat: { agents: { arcotheon: '*' } },
    ...fields,
  };
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/**
 * An in-process test registry (python-tuf's repository simulator in spirit): a real
 * registry built by the real builder in a temp directory, from real packages signed by real keys,
 * which a test may then tamper with file by file to play an attack against the client.
 *
 *   const reg = await TestRegistry.create();
 *   await reg.addPublisher('acme');
 *   await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
 *   await reg.build();
 *   const client = reg.client(home);          // file:// remote pinned to reg.rootKey
 *   await reg.write('v1/packages/acme/pdf.json', '...');   // tamper
 *
 * `mount(server)` serves the current v1/ files over a TestServer (HTTPS with the test CA, or
 * loopback HTTP), reading each file at request time so later tampering is visible.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildRegistry, type BuildResult } from '../../sdk/src/registry/builder/build.js';
import { addPublisher, initRegistry } from '../../sdk/src/registry/builder/maintain.js';
import { publishPackage, type PublishResult } from '../../sdk/src/registry/builder/publish.js';
import { RegistryClient, type RegistryClientOptions } from '../../sdk/src/registry/client/registry-client.js';
import type { RemoteConfig } from '../../sdk/src/registry/remotes.js';
import type { CataloguePayload } from '../../sdk/src/registry/types.js';
import { signEnvelope, type SignatureContext } from '../../sdk/src/trust/envelope.js';
import { generateKey, type KeyFile } from '../../sdk/src/trust/keys.js';
import { buildSignedPackage } from '../../sdk/src/trust/package-signature.js';
import { buildPackage } from '../../sdk/src/format/package-build.js';
import type { Envelope } from '../../sdk/src/format/manifest-types.js';
import type { TestServer } from './test-server.js';

export interface TestPackageSpec {
  id: string;
  version: string;
  name?: string;
  summary?: string;
  keywords?: string[];
  tier?: 'free' | 'pro';
  access?: 'public' | 'entitled';
  entitlement?: string;
  /** Extra README text, to make two builds of one version differ. */
  readme?: string;
}

export class TestRegistry {
  readonly publisherKeys = new Map<string, KeyFile>();

  private constructor(
    /** Temp directory holding the registry (`dir`) and package sources/outputs (`work`). */
    readonly tempDir: string,
    readonly dir: string,
    readonly work: string,
    readonly rootKey: KeyFile,
  ) {}

  static async create(options: { name?: string } = {}): Promise<TestRegistry> {
    const tempDir = await mkdtemp(join(tmpdir(), 'adcap-test-registry-'));
    const rootKey = generateKey();
    const registry = new TestRegistry(tempDir, join(tempDir, 'registry'), join(tempDir, 'work'), rootKey);
    await mkdir(registry.work, { recursive: true });
    await initRegistry(registry.dir, { name: options.name ?? 'test-registry', rootKeys: [rootKey] });
    return registry;
  }

  /** file:// URL of v1/ (what `remote add` takes). */
  get v1Url(): string {
    return pathToFileURL(join(this.dir, 'v1')).href + '/';
  }

  remote(name = 'test', url = this.v1Url, extra: Partial<RemoteConfig> = {}): RemoteConfig {
    return { name, url, rootKeys: [this.rootKey.publicKey], ...extra };
  }

  /**
   * A client of this registry. It reads v1/ only unless `layout: 'auto'` is passed: the v1 attack
   * tests tamper with v1/ files, and a v2-preferring client would never read them
   * (test/sdk/registry/client/attacks-v2.test.ts plays the attacks against v2/).
   */
  client(home: string, options: Partial<RegistryClientOptions> & { url?: string; name?: string } = {}): RegistryClient {
    const { url, name, ...rest } = options;
    return new RegistryClient({ home, remote: this.remote(name, url), layout: 'v1', ...rest });
  }

  /** Registers a publisher with a fresh key (or the given one) and remembers the key. */
  async addPublisher(publisher: string, key: KeyFile = generateKey()): Promise<KeyFile> {
    await addPublisher(this.dir, publisher, { publicKey: key.publicKey, name: `${publisher} Inc.` });
    if (!this.publisherKeys.has(publisher)) this.publisherKeys.set(publisher, key);
    return key;
  }

  /** Writes a capability source directory for `spec` and returns its path. */
  async source(spec: TestPackageSpec): Promise<string> {
    const dir = join(this.work, 'src', spec.id.replace('/', '__'), `${spec.version}-${Math.random().toString(36).slice(2, 8)}`);
    await mkdir(dir, { recursive: true });
    const manifest: Record<string, unknown> = {
      adcap: '1.0',
      id: spec.id,
      version: spec.version,
      name: spec.name ?? `Test ${spec.id}`,
      summary: spec.summary ?? `Test capability ${spec.id}`,
      keywords: spec.keywords ?? [],
      readme: 'README.md',
    };
    if (spec.tier !== undefined || spec.access !== undefined) {
      manifest['distribution'] = {
        tier: spec.tier ?? 'free',
        access: spec.access ?? 'public',
        ...(spec.entitlement === undefined ? {} : { entitlement: spec.entitlement }),
      };
    }
    await writeFile(join(dir, 'capability.json'), JSON.stringify(manifest, null, 2));
    await writeFile(join(dir, 'README.md'), `# ${spec.id} ${spec.version}\n${spec.readme ?? ''}\n`);
    return dir;
  }

  /** Builds a package signed with `keys` (default: its publisher's key); `keys: []` leaves it unsigned. */
  async package(spec: TestPackageSpec, options: { keys?: KeyFile[] } = {}): Promise<string> {
    const src = await this.source(spec);
    const out = join(this.work, 'out', `${spec.id.replace('/', '__')}-${spec.version}-${Math.random().toString(36).slice(2, 8)}.adcap`);
    await mkdir(join(this.work, 'out'), { recursive: true });
    const publisher = spec.id.split('/')[0] as string;
    const keys = options.keys ?? [this.keyOf(publisher)];
    if (keys.length === 0) await buildPackage(src, { out });
    else await buildSignedPackage(src, { out, keys });
    return out;
  }

  keyOf(publisher: string): KeyFile {
    const key = this.publisherKeys.get(publisher);
    if (key === undefined) throw new Error(`test registry: no key for publisher ${publisher}; call addPublisher first`);
    return key;
  }

  /** Builds (signed by the publisher's key) and publishes a package. */
  async publish(spec: TestPackageSpec, options: { keys?: KeyFile[]; urls?: string[] } = {}): Promise<PublishResult & { file: string }> {
    const file = await this.package(spec, options.keys === undefined ? {} : { keys: options.keys });
    const result = await publishPackage(this.dir, file, { urls: options.urls ?? [] });
    return { ...result, file };
  }

  /** `registry build` with the root key; `now` defaults to the current time. */
  async build(now: Date = new Date()): Promise<BuildResult> {
    return buildRegistry(this.dir, { rootKeys: [this.rootKey], now });
  }

  path(relativePath: string): string {
    return join(this.dir, ...relativePath.split('/'));
  }

  read(relativePath: string): Promise<Buffer> {
    return readFile(this.path(relativePath));
  }

  async write(relativePath: string, data: string | Uint8Array): Promise<void> {
    await mkdir(join(this.path(relativePath), '..'), { recursive: true });
    await writeFile(this.path(relativePath), data);
  }

  async catalogueEnvelope(): Promise<Envelope<CataloguePayload>> {
    return JSON.parse((await this.read('v1/catalog.json')).toString('utf8')) as Envelope<CataloguePayload>;
  }

  /** Re-signs an edited catalogue payload (with any keys and context) and writes it to v1/catalog.json. */
  async resignCatalogue(
    edit: (payload: CataloguePayload) => CataloguePayload | void,
    options: { keys?: KeyFile[]; context?: SignatureContext } = {},
  ): Promise<Envelope<CataloguePayload>> {
    const envelope = await this.catalogueEnvelope();
    const payload = structuredClone(envelope.payload);
    const edited = edit(payload) ?? payload;
    const signed = signEnvelope(edited, options.context ?? 'arcotheon-catalog-v1', options.keys ?? [this.rootKey]);
    await this.write('v1/catalog.json', JSON.stringify(signed));
    return signed;
  }

  /** Serves every current v1/ file at `${prefix}<path>` on the server, read at request time. */
  async mount(server: TestServer, prefix = '/v1/'): Promise<string> {
    const v1 = join(this.dir, 'v1');
    for (const file of await walk(v1)) {
      const rel = relative(v1, file).split('\\').join('/');
      server.route(`${prefix}${rel}`, async (_req, res) => {
        try {
          const body = await readFile(file);
          res.statusCode = 200;
          res.setHeader('content-length', String(body.length));
          res.end(body);
        } catch {
          res.statusCode = 404;
          res.end();
        }
      });
    }
    return server.url(prefix);
  }

  async cleanup(): Promise<void> {
    await rm(this.tempDir, { recursive: true, force: true });
  }
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

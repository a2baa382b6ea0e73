/**
 * The registry's files (spec §13, DESIGN §11) are checked against
 * sdk/schema/registry-1.json. Every definition accepts what the builder writes (the example
 * registry of `npm run examples` and a test registry with every kind of status), and each refuses a
 * set of malformed documents through the real entry points, with the code of its place (E_CATALOG,
 * E_DOC_HASH, E_SCHEMA) and a message that names the JSON pointer of the problem.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAdcapError } from '../../../sdk/src/errors.js';
import { parseStrictJson } from '../../../sdk/src/format/strict-json.js';
import { deprecateCapability, revokeKey, revokeVersion, yankVersion } from '../../../sdk/src/registry/builder/maintain.js';
import {
  checkPublisherFile,
  checkStatusFile,
  checkVersionEntry,
  listCapabilityIds,
  readAllPublishers,
  readEntries,
  readRegistryConfig,
  readStatus,
} from '../../../sdk/src/registry/builder/source.js';
import { checkCataloguePayload, verifyCatalogue } from '../../../sdk/src/registry/catalogue.js';
import { parsePackageDocument } from '../../../sdk/src/registry/client/package-document.js';
import { REGISTRY_CONFIG } from '../../../sdk/src/registry/layout.js';
import { REGISTRY_SCHEMA_ID } from '../../../sdk/src/registry/schema.js';
import type { CataloguePayload, PackageDocument, PublisherFile, StatusFile, VersionEntry } from '../../../sdk/src/registry/types.js';
import { generateKey } from '../../../sdk/src/trust/keys.js';
import { TestRegistry } from '../../helpers/test-registry.js';

const repo = join(import.meta.dirname, '..', '..', '..');
const EXAMPLE_REGISTRY = join(repo, 'examples', 'registry');
const SCHEMA_FILE = join(repo, 'sdk', 'schema', 'registry-1.json');
const NO_AGE_LIMIT = { maxAgeMs: Number.MAX_SAFE_INTEGER };

interface CheckedTree {
  publishers: number;
  entries: number;
  statuses: number;
  documents: number;
  catalogueCapabilities: number;
}

async function jsonFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsonFilesUnder(path)));
    else if (entry.name.endsWith('.json')) out.push(path);
  }
  return out;
}

/** Reads every file of a registry tree through the real readers (each checks its schema). */
async function checkTree(root: string, rootKeys: readonly string[]): Promise<CheckedTree> {
  const config = await readRegistryConfig(root);
  expect(config.spec).toBe(1);
  const publishers = await readAllPublishers(root);
  let entries = 0;
  let statuses = 0;
  for (const id of await listCapabilityIds(root)) {
    entries += (await readEntries(root, id)).length;
    const [publisher, name] = id.split('/') as [string, string];
    if (existsSync(join(root, 'status', publisher, `${name}.json`))) {
      await readStatus(root, id);
      statuses += 1;
    }
  }
  const v1 = join(root, 'v1');
  const verified = verifyCatalogue(await readFile(join(v1, 'catalog.json')), rootKeys, NO_AGE_LIMIT);
  let documents = 0;
  for (const file of await jsonFilesUnder(join(v1, 'packages'))) {
    const id = relative(join(v1, 'packages'), file)
      .split(/[\\/]/)
      .join('/')
      .replace(/\.json$/, '');
    const doc = parsePackageDocument(await readFile(file), id);
    expect(doc.id).toBe(id);
    documents += 1;
  }
  return {
    publishers: publishers.length,
    entries,
    statuses,
    documents,
    catalogueCapabilities: Object.keys(verified.payload.capabilities).length,
  };
}

let reg: TestRegistry;
let catalogue: CataloguePayload;
let document: PackageDocument;
let entry: VersionEntry;
let publisher: PublisherFile;
let status: StatusFile;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'adcap-registry-schema-'));
  // A test registry with every kind of record the builder writes: two publishers, a rotated and
  // revoked key, stable and prerelease versions, a yank, a revocation, a deprecation, a pro
  // entitled package and a second download URL.
  reg = await TestRegistry.create({ name: 'schema-test' });
  const first = await reg.addPublisher('acme');
  await reg.addPublisher('beta');
  await reg.publish(
    { id: 'acme/pdf', version: '1.0.0', keywords: ['pdf', 'forms'] },
    { urls: ['https://mirror.example/acme-pdf-1.0.0.adcap'] },
  );
  await reg.publish({ id: 'acme/pdf', version: '1.1.0' });
  await reg.publish({ id: 'acme/pdf', version: '1.2.0' });
  await reg.publish({ id: 'acme/pdf', version: '2.0.0-beta.1' });
  await reg.publish({ id: 'beta/pro-tools', version: '0.1.0', tier: 'pro', access: 'entitled', entitlement: 'beta.pro' });
  await reg.publish({ id: 'beta/old', version: '1.0.0' });
  await yankVersion(reg.dir, 'acme/pdf', '1.1.0', 'broken on Windows');
  await revokeVersion(reg.dir, 'acme/pdf', '1.2.0', 'malicious');
  await deprecateCapability(reg.dir, 'beta/old', 'Use beta/pro-tools');
  const next = await reg.addPublisher('acme', generateKey());
  await revokeKey(reg.dir, 'acme', first.keyId, { now: new Date('2026-10-01T00:00:00Z') });
  expect(next.keyId).not.toBe(first.keyId);
  await reg.build();

  catalogue = (await reg.catalogueEnvelope()).payload;
  document = parseStrictJson(await reg.read('v1/packages/acme/pdf.json'), 'document') as PackageDocument;
  entry = parseStrictJson(await reg.read('entries/acme/pdf/1.0.0.json'), 'entry') as VersionEntry;
  publisher = parseStrictJson(await reg.read('publishers/acme.json'), 'publisher') as PublisherFile;
  status = parseStrictJson(await reg.read('status/acme/pdf.json'), 'status') as StatusFile;
});

afterAll(async () => {
  await reg.cleanup();
  await rm(scratch, { recursive: true, force: true });
});

describe('registry-1.json accepts what the builder writes', () => {
  it('is a valid draft 2020-12 schema that a stock Ajv compiles, shipped as an export of the SDK', async () => {
    const schema = JSON.parse(await readFile(SCHEMA_FILE, 'utf8')) as { $id: string; $defs: Record<string, unknown> };
    expect(schema.$id).toBe(REGISTRY_SCHEMA_ID);
    // The SDK skips this meta-schema check at run time (sdk/src/registry/schema.ts), so it is made here.
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, validateSchema: true, validateFormats: false });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    ajv.addSchema(schema);
    for (const kind of ['registryConfig', 'publisherFile', 'versionEntry', 'statusFile', 'packageDocument', 'cataloguePayload']) {
      expect(ajv.getSchema(`${schema.$id}#/$defs/${kind}`), kind).toBeTypeOf('function');
    }
    const pkg = JSON.parse(await readFile(join(repo, 'sdk', 'package.json'), 'utf8')) as {
      exports: Record<string, string>;
      files: string[];
    };
    expect(pkg.exports['./schema/registry-1.json']).toBe('./schema/registry-1.json');
    expect(pkg.files).toContain('schema');
  });

  it('every file of the example registry (npm run examples)', async () => {
    if (!existsSync(join(EXAMPLE_REGISTRY, REGISTRY_CONFIG))) throw new Error('examples/registry is missing: run "npm run examples" first');
    const pin = JSON.parse(await readFile(join(EXAMPLE_REGISTRY, 'embedded-remote.json'), 'utf8')) as { rootKeys: string[] };
    const checked = await checkTree(EXAMPLE_REGISTRY, pin.rootKeys);
    expect(checked.publishers).toBe(2);
    expect(checked.documents).toBe(8);
    expect(checked.catalogueCapabilities).toBe(8);
    expect(checked.entries).toBeGreaterThanOrEqual(checked.documents);
    expect(checked.statuses).toBeGreaterThanOrEqual(1);
  });

  it('every file of a test registry with yanks, a revocation, a deprecation, a revoked key and an entitled package', async () => {
    const checked = await checkTree(reg.dir, [reg.rootKey.publicKey]);
    expect(checked).toEqual({ publishers: 2, entries: 6, statuses: 2, documents: 3, catalogueCapabilities: 3 });
    expect(document.versions['1.1.0']?.status).toBe('yanked');
    expect(document.versions['1.2.0']?.status).toBe('revoked');
    expect(publisher.keys.map((k) => k.status)).toEqual(['revoked', 'active']);
    expect(catalogue.capabilities['beta/old']?.deprecated).toBe(true);
    expect(catalogue.capabilities['beta/pro-tools']).toMatchObject({ tier: 'pro', access: 'entitled' });
  });

  it('keeps unknown fields a later version may add, at every level', () => {
    const payload = { ...structuredClone(catalogue), mirrors: ['https://cdn.example/'] };
    const capability = payload.capabilities['acme/pdf'] as unknown as Record<string, unknown>;
    capability['icon'] = 'icons/pdf.svg';
    expect(checkCataloguePayload(payload)).toBe(payload);
    const doc = structuredClone(document) as unknown as { versions: Record<string, Record<string, unknown>> };
    (doc.versions['1.0.0'] as Record<string, unknown>)['downloads'] = 12;
    expect(parsePackageDocument(Buffer.from(JSON.stringify(doc)), 'acme/pdf').versions['1.0.0']).toMatchObject({ downloads: 12 });
  });
});

/** Runs `fn`, expecting an AdcapError; returns it. */
function refusal(fn: () => unknown): { code: string; message: string; details: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    if (isAdcapError(error)) return { code: error.code, message: error.message, details: (error.details ?? {}) as Record<string, unknown> };
    throw error;
  }
  throw new Error('expected a refusal, but the document was accepted');
}

type Edit<T> = [string, (doc: T) => void, string, string];

function edited<T>(value: T, edit: (doc: T) => void): T {
  const copy = structuredClone(value);
  edit(copy);
  return copy;
}

function record(value: unknown): Record<string, unknown> {
  return value as Record<string, unknown>;
}

describe('the catalogue payload (E_CATALOG)', () => {
  const cases: Edit<CataloguePayload>[] = [
    ['a missing registry', (p) => delete record(p)['registry'], '', 'required'],
    ['spec 2', (p) => (record(p)['spec'] = 2), '/spec', 'const'],
    ['a string sequence', (p) => (record(p)['sequence'] = 'one'), '/sequence', 'type'],
    ['a negative sequence', (p) => (p.sequence = -1), '/sequence', 'minimum'],
    ['a local time', (p) => (p.generatedAt = '2026-11-30T12:00:00+01:00'), '/generatedAt', 'pattern'],
    ['a month 13', (p) => (p.generatedAt = '2026-13-30T12:00:00Z'), '/generatedAt', 'format'],
    ['publishers as a list', (p) => (record(p)['publishers'] = []), '/publishers', 'type'],
    [
      'a publisher id with capitals',
      (p) => (p.publishers['Acme'] = p.publishers['acme'] as CataloguePublisherLike),
      '/publishers',
      'pattern',
    ],
    ['a key status "lost"', (p) => (record(p.publishers['acme']?.keys[0])['status'] = 'lost'), '/publishers/acme/keys/0/status', 'enum'],
    [
      'a key id in capitals',
      (p) => (record(p.publishers['acme']?.keys[0])['keyId'] = 'A'.repeat(64)),
      '/publishers/acme/keys/0/keyId',
      'pattern',
    ],
    [
      'a capability id without a publisher',
      (p) => (p.capabilities['pdf'] = p.capabilities['acme/pdf'] as CatalogueCapabilityLike),
      '/capabilities',
      'pattern',
    ],
    ['a tier "gold"', (p) => (record(p.capabilities['acme/pdf'])['tier'] = 'gold'), '/capabilities/acme~1pdf/tier', 'enum'],
    ['keywords as a string', (p) => (record(p.capabilities['acme/pdf'])['keywords'] = 'pdf'), '/capabilities/acme~1pdf/keywords', 'type'],
    ['deprecated as "no"', (p) => (record(p.capabilities['acme/pdf'])['deprecated'] = 'no'), '/capabilities/acme~1pdf/deprecated', 'type'],
    [
      'latest that is not semver',
      (p) => (record(p.capabilities['acme/pdf'])['latest'] = 'v1'),
      '/capabilities/acme~1pdf/latest',
      'pattern',
    ],
    [
      'a doc pin without sha256',
      (p) => delete record(p.capabilities['acme/pdf']?.doc)['sha256'],
      '/capabilities/acme~1pdf/doc',
      'required',
    ],
    [
      'a short doc sha256',
      (p) => (record(p.capabilities['acme/pdf']?.doc)['sha256'] = 'abc'),
      '/capabilities/acme~1pdf/doc/sha256',
      'pattern',
    ],
  ];

  it.each(cases)('refuses %s, naming the field', (_name, edit, pointer, keyword) => {
    const error = refusal(() => checkCataloguePayload(edited(catalogue, edit)));
    expect(error.code).toBe('E_CATALOG');
    expect(error.details).toMatchObject({ pointer, keyword });
    expect(error.message).toContain(`malformed: ${pointer || '/'} `);
    expect(error.message).toMatch(/; the registry must rebuild it\.$/);
  });

  it('refuses a payload that is not an object', () => {
    expect(refusal(() => checkCataloguePayload([])).code).toBe('E_CATALOG');
    expect(refusal(() => checkCataloguePayload(null)).message).toContain('/ must be an object (type)');
  });

  it('refuses a publisher key whose keyId is not the SHA-256 of its publicKey (a rule beside the schema)', () => {
    const other = generateKey();
    const error = refusal(() =>
      checkCataloguePayload(edited(catalogue, (p) => (record(p.publishers['acme']?.keys[0])['publicKey'] = other.publicKey))),
    );
    expect(error).toMatchObject({ code: 'E_CATALOG', details: { pointer: '/publishers/acme/keys/0/publicKey' } });
    expect(error.message).toContain('whose SHA-256 is keyId');
  });

  it('refuses a leap second, which the date-time format admits but Date.parse does not', () => {
    const error = refusal(() => checkCataloguePayload(edited(catalogue, (p) => (p.generatedAt = '2026-12-31T23:59:60Z'))));
    expect(error).toMatchObject({ code: 'E_CATALOG', details: { pointer: '/generatedAt' } });
  });
});

type CataloguePublisherLike = CataloguePayload['publishers'][string];
type CatalogueCapabilityLike = CataloguePayload['capabilities'][string];

describe('the package document (E_DOC_HASH)', () => {
  const v = (doc: PackageDocument): Record<string, unknown> => record(doc.versions['1.0.0']);
  const cases: Edit<PackageDocument>[] = [
    ['versions as a list', (d) => (record(d)['versions'] = []), '/versions', 'type'],
    [
      'a version key that is not semver',
      (d) => (d.versions['latest'] = d.versions['1.0.0'] as PackageDocument['versions'][string]),
      '/versions',
      'pattern',
    ],
    ['an entry without its archive', (d) => delete v(d)['archive'], '/versions/1.0.0', 'required'],
    ['a negative archive size', (d) => (record(v(d)['archive'])['size'] = -1), '/versions/1.0.0/archive/size', 'minimum'],
    ['an archive size as a string', (d) => (record(v(d)['archive'])['size'] = '10'), '/versions/1.0.0/archive/size', 'type'],
    ['a URL that is a number', (d) => (record(v(d)['archive'])['urls'] = [42]), '/versions/1.0.0/archive/urls/0', 'type'],
    [
      'an archive sha256 in capitals',
      (d) => (record(v(d)['archive'])['sha256'] = 'B'.repeat(64)),
      '/versions/1.0.0/archive/sha256',
      'pattern',
    ],
    ['a manifestSha256 that is not a hash', (d) => (v(d)['manifestSha256'] = 'x'), '/versions/1.0.0/manifestSha256', 'pattern'],
    ['a status "pulled"', (d) => (v(d)['status'] = 'pulled'), '/versions/1.0.0/status', 'enum'],
    ['an access "secret"', (d) => (v(d)['access'] = 'secret'), '/versions/1.0.0/access', 'enum'],
    ['permissions as an object', (d) => (v(d)['permissions'] = {}), '/versions/1.0.0/permissions', 'type'],
    ['an entry without its permissions', (d) => delete v(d)['permissions'], '/versions/1.0.0', 'required'],
    ['contents as a list', (d) => (v(d)['contents'] = []), '/versions/1.0.0/contents', 'type'],
    ['a deprecation without a message', (d) => (record(d)['deprecated'] = {}), '/deprecated', 'required'],
  ];

  it.each(cases)('refuses %s, naming the field', (_name, edit, pointer, keyword) => {
    const error = refusal(() => parsePackageDocument(Buffer.from(JSON.stringify(edited(document, edit))), 'acme/pdf'));
    expect(error.code).toBe('E_DOC_HASH');
    expect(error.details).toMatchObject({ id: 'acme/pdf', pointer, keyword });
    expect(error.message).toContain(`malformed: ${pointer} `);
  });

  it('refuses a document of another capability, and an entry that names another version (rules beside the schema)', () => {
    expect(refusal(() => parsePackageDocument(Buffer.from(JSON.stringify(document)), 'acme/other'))).toMatchObject({
      code: 'E_DOC_HASH',
      details: { pointer: '/id' },
    });
    const swapped = edited(document, (d) => (d.versions['1.0.0'] = d.versions['1.1.0'] as PackageDocument['versions'][string]));
    const error = refusal(() => parsePackageDocument(Buffer.from(JSON.stringify(swapped)), 'acme/pdf'));
    expect(error).toMatchObject({ code: 'E_DOC_HASH', details: { pointer: '/versions/1.0.0' } });
    expect(error.message).toContain('"acme/pdf@1.1.0", another version');
  });

  it('refuses invalid JSON and a document that is not an object', () => {
    expect(refusal(() => parsePackageDocument(Buffer.from('{"id":"acme/pdf","id":"acme/pdf"}'), 'acme/pdf')).code).toBe('E_DOC_HASH');
    expect(refusal(() => parsePackageDocument(Buffer.from('[]'), 'acme/pdf')).message).toContain('/ must be an object (type)');
  });
});

describe("the registry's source files (E_SCHEMA, naming the file)", () => {
  const path = '/registry/file.json';

  it.each<Edit<PublisherFile>>([
    ['a publisher without keys', (f) => delete record(f)['keys'], '', 'required'],
    ['a key without publicKey', (f) => delete record(f.keys[0])['publicKey'], '/keys/0', 'required'],
    ['a key status "lost"', (f) => (record(f.keys[1])['status'] = 'lost'), '/keys/1/status', 'enum'],
    ['a revokedAt that is not a date', (f) => (record(f.keys[0])['revokedAt'] = 'yesterday'), '/keys/0/revokedAt', 'pattern'],
  ])('publishers/<pub>.json: refuses %s', (_name, edit, pointer, keyword) => {
    const error = refusal(() => checkPublisherFile(edited(publisher, edit), path, 'acme'));
    expect(error).toMatchObject({ code: 'E_SCHEMA', details: { file: path, pointer, keyword } });
    expect(error.message).toMatch(
      new RegExp(`^${path} does not match its schema: ${pointer || '/'} .*; fix the file by hand or restore it from version control\\.$`),
    );
  });

  it('publishers/<pub>.json: refuses another id and a keyId that is not the hash of its key (rules beside the schema)', () => {
    expect(refusal(() => checkPublisherFile(publisher, path, 'beta')).message).toContain('but its file name says "beta"');
    const other = generateKey();
    const error = refusal(() =>
      checkPublisherFile(
        edited(publisher, (f) => (record(f.keys[1])['publicKey'] = other.publicKey)),
        path,
        'acme',
      ),
    );
    expect(error).toMatchObject({ code: 'E_SCHEMA' });
    expect(error.message).toContain('keys[1] whose keyId is not the SHA-256 of its publicKey');
  });

  it.each<Edit<VersionEntry>>([
    ['an entry without its manifestSha256', (e) => delete record(e)['manifestSha256'], '', 'required'],
    ['an archive without urls', (e) => delete record(e.archive)['urls'], '/archive', 'required'],
    ['a signer that is not a key id', (e) => (e.signers = ['acme']), '/signers/0', 'pattern'],
    ['a dependency on a bad id', (e) => (e.dependencies = { 'Not An Id': '^1.0.0' }), '/dependencies', 'pattern'],
    [
      'a resource with a string size',
      (e) => (e.contents.resources = [{ id: 'fonts', size: '1' as unknown as number }]),
      '/contents/resources/0/size',
      'type',
    ],
    ['keywords as a string', (e) => (record(e)['keywords'] = 'pdf'), '/keywords', 'type'],
  ])('entries/<pub>/<name>/<version>.json: refuses %s', (_name, edit, pointer, keyword) => {
    const error = refusal(() => checkVersionEntry(edited(entry, edit), path, 'acme/pdf', '1.0.0'));
    expect(error).toMatchObject({ code: 'E_SCHEMA', details: { file: path, pointer, keyword } });
    expect(error.message).toContain(`does not match its schema: ${pointer || '/'} `);
  });

  it('entries/<pub>/<name>/<version>.json: refuses an entry without the fields "registry publish" writes and "build" reads', () => {
    // registry-1.json makes them optional (spec §13 does not name them), so served files of other
    // builders load; this builder's own source entries must still carry them.
    expect(
      refusal(() =>
        checkVersionEntry(
          edited(entry, (e) => delete record(e)['publishedAt']),
          path,
          'acme/pdf',
          '1.0.0',
        ),
      ),
    ).toMatchObject({
      code: 'E_SCHEMA',
      message: expect.stringContaining('has no "publishedAt", which "adcap registry publish" writes') as unknown,
    });
    expect(
      refusal(() =>
        checkVersionEntry(
          edited(entry, (e) => delete record(e.contents)['tools']),
          path,
          'acme/pdf',
          '1.0.0',
        ),
      ).message,
    ).toContain('has no contents.tools');
  });

  it('entries/<pub>/<name>/<version>.json: refuses an entry for another version (a rule beside the schema)', () => {
    expect(refusal(() => checkVersionEntry(entry, path, 'acme/pdf', '1.0.1')).message).toContain(
      'names acme/pdf@1.0.0, not acme/pdf@1.0.1',
    );
  });

  it.each<Edit<StatusFile>>([
    ['a reason that is a number', (s) => (record(s)['yanked'] = { '1.1.0': 42 }), '/yanked/1.1.0', 'type'],
    ['a version key that is not semver', (s) => (record(s)['revoked'] = { 'v1.2': 'bad' }), '/revoked', 'pattern'],
    ['a deprecation that is a string', (s) => (record(s)['deprecated'] = 'old'), '/deprecated', 'type'],
  ])('status/<pub>/<name>.json: refuses %s', (_name, edit, pointer, keyword) => {
    const error = refusal(() => checkStatusFile(edited(status, edit), path));
    expect(error).toMatchObject({ code: 'E_SCHEMA', details: { file: path, pointer, keyword } });
  });

  it(
    'registry.json: refuses an empty root key list, a keyId that is not the ' +
      'hash of its key, and a negative sequence; reads a missing sequence as 0',
    async () => {
      const config = parseStrictJson(await reg.read(REGISTRY_CONFIG), 'registry.json') as Record<string, unknown>;
      const file = join(scratch, REGISTRY_CONFIG);
      const read = async (value: unknown): Promise<unknown> => {
        await writeFile(file, JSON.stringify(value));
        return readRegistryConfig(scratch);
      };
      await expect(read({ ...config, rootKeys: [] })).rejects.toMatchObject({
        code: 'E_SCHEMA',
        details: { pointer: '/rootKeys', keyword: 'minItems' },
      });
      await expect(read({ ...config, spec: '1' })).rejects.toMatchObject({
        code: 'E_SCHEMA',
        details: { pointer: '/spec', keyword: 'const' },
      });
      await expect(read({ ...config, sequence: -3 })).rejects.toMatchObject({
        code: 'E_SCHEMA',
        details: { pointer: '/sequence', keyword: 'minimum' },
      });
      const other = generateKey();
      const swapped = { ...config, rootKeys: [{ keyId: reg.rootKey.keyId, publicKey: other.publicKey }] };
      await expect(read(swapped)).rejects.toMatchObject({
        code: 'E_SCHEMA',
        message: expect.stringContaining('rootKeys[0] whose keyId is not the SHA-256 of its publicKey'),
      });
      const { sequence: _dropped, ...withoutSequence } = config;
      await expect(read(withoutSequence)).resolves.toMatchObject({ sequence: 0 });
    },
  );
});

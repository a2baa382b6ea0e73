import type { Command } from 'commander';
import { AdcapError } from '../../errors.js';
import { buildRegistry } from '../../registry/builder/build.js';
import { addPublisher, deprecateCapability, initRegistry, revokeKey, revokeVersion, yankVersion } from '../../registry/builder/maintain.js';
import { publishPackage } from '../../registry/builder/publish.js';
import { serveRegistry } from '../../registry/builder/serve.js';
import { parseIdAtVersion } from '../../registry/layout.js';
import { readKeyFile, trustedKeyFromPublicKey, type KeyFile } from '../../trust/keys.js';
import type { CliContext } from '../context.js';

/**
 * Registry maintenance (DESIGN §8, §11): `adcap registry init|add-publisher|revoke-key|publish|
 * yank|revoke|deprecate|build|serve`. These work on a registry directory, never on the home.
 * Source edits become visible to clients after the next `registry build`.
 */
export function register(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  const registry = program
    .command('registry')
    .description('maintain a static registry (spec §13): publishers, versions, status, signed catalogue');

  registry
    .command('init')
    .description('create a registry directory; stores only the public half of the root key')
    .argument('<dir>', 'registry directory')
    .requiredOption('--name <registry>', 'registry name, recorded in the catalogue')
    .option('--root-key <keyfile>', 'root key file (repeatable); only its public key is stored', collect, [] as string[])
    .option('--root-public-key <base64>', 'root public key, when the secret key lives elsewhere (repeatable)', collect, [] as string[])
    .action(async (dirArg: string, opts: { name: string; rootKey: string[]; rootPublicKey: string[] }) => {
      const dir = ctx.resolvePath(dirArg);
      const fromFiles = await readKeys(ctx, opts.rootKey);
      const fromBase64 = opts.rootPublicKey.map((key) => trustedKeyFromPublicKey(key));
      const rootKeys = [...fromFiles, ...fromBase64];
      if (rootKeys.length === 0)
        throw new AdcapError('E_USAGE', 'registry init needs a root key; pass --root-key key.json (create one with "adcap keygen").');
      const config = await initRegistry(dir, { name: opts.name, rootKeys });
      output.result({ dir, registry: config.registry, rootKeys: config.rootKeys }, () => [
        `created registry "${config.registry}" in ${dir}`,
        ...config.rootKeys.map((k) => `root key ${k.keyId} (clients pin: ${k.publicKey})`),
        `next: adcap registry add-publisher ${dirArg} <publisher> --key <base64>`,
      ]);
    });

  registry
    .command('add-publisher')
    .description('register a publisher, or add a key to one (key rotation)')
    .argument('<dir>', 'registry directory')
    .argument('<publisher>', 'publisher id (the part before "/" in capability ids)')
    .requiredOption('--key <base64>', "the publisher's public key (the publicKey field of its key file)")
    .option('--name <text>', 'display name')
    .action(async (dirArg: string, publisher: string, opts: { key: string; name?: string }) => {
      const file = await addPublisher(ctx.resolvePath(dirArg), publisher, {
        publicKey: opts.key,
        ...(opts.name === undefined ? {} : { name: opts.name }),
      });
      output.result(file, () => [
        `publisher ${file.id} (${file.name}) has ${file.keys.length} key(s):`,
        ...file.keys.map((k) => `  ${k.keyId} ${k.status}`),
      ]);
    });

  registry
    .command('revoke-key')
    .description('revoke a publisher key: packages signed only by it are refused from the next build on')
    .argument('<dir>', 'registry directory')
    .argument('<publisher>', 'publisher id')
    .argument('<keyId>', 'the key id (64 hex digits)')
    .action(async (dirArg: string, publisher: string, keyId: string) => {
      const file = await revokeKey(ctx.resolvePath(dirArg), publisher, keyId);
      output.result(file, () => `revoked key ${keyId} of ${publisher}; run "adcap registry build" to publish the change`);
    });

  registry
    .command('publish')
    .description('add a signed package as an immutable version entry and mirror it under v1/blobs/')
    .argument('<dir>', 'registry directory')
    .argument('<file>', '.adcap package signed by a key of its publisher')
    .option('--url <url>', 'an extra download mirror, after the registry copy (repeatable)', collect, [] as string[])
    .action(async (dirArg: string, fileArg: string, opts: { url: string[] }) => {
      const result = await publishPackage(ctx.resolvePath(dirArg), ctx.resolvePath(fileArg), { urls: opts.url });
      const { entry } = result;
      output.result(
        { id: entry.id, version: entry.version, created: result.created, archive: entry.archive, signers: entry.signers },
        () =>
          result.created
            ? `published ${entry.id}@${entry.version} (${entry.archive.size} bytes, ` +
              `sha256 ${entry.archive.sha256}); run "adcap registry build" to publish the catalogue`
            : `${entry.id}@${entry.version} is already published with the same content; nothing changed`,
      );
    });

  for (const mark of ['yank', 'revoke'] as const) {
    registry
      .command(mark)
      .description(
        mark === 'yank'
          ? 'mark a version yanked: hosts do not choose it automatically'
          : 'mark a version revoked: hosts never install or run it',
      )
      .argument('<dir>', 'registry directory')
      .argument('<id@version>', 'e.g. acme/pdf@1.0.1')
      .option('--reason <text>', 'why, shown to users')
      .action(async (dirArg: string, target: string, opts: { reason?: string }) => {
        const { id, version } = parseIdAtVersion(target);
        const fn = mark === 'yank' ? yankVersion : revokeVersion;
        const status = await fn(ctx.resolvePath(dirArg), id, version, ...(opts.reason === undefined ? [] : [opts.reason]));
        output.result(
          { id, version, status },
          () => `${mark === 'yank' ? 'yanked' : 'revoked'} ${id}@${version}; run "adcap registry build" to publish the change`,
        );
      });
  }

  registry
    .command('deprecate')
    .description('mark a capability deprecated, with a message for users')
    .argument('<dir>', 'registry directory')
    .argument('<id>', 'capability id')
    .option('--message <text>', 'e.g. "Use acme/pdf2"')
    .action(async (dirArg: string, id: string, opts: { message?: string }) => {
      const status = await deprecateCapability(ctx.resolvePath(dirArg), id, ...(opts.message === undefined ? [] : [opts.message]));
      output.result({ id, status }, () => `deprecated ${id}; run "adcap registry build" to publish the change`);
    });

  registry
    .command('build')
    .description('write package documents, v2/ and v1/, then the signed top level and catalogue (sequence = previous + 1)')
    .argument('<dir>', 'registry directory')
    .requiredOption('--root-key <keyfile>', 'root key file (repeatable, e.g. old and new during a rotation)', collect, [] as string[])
    .option('--v1-max-mib <n>', 'largest v1/catalog.json; past it v1/ lists the most recent capabilities that fit (default 16)', (v) =>
      parsePositive(v, '--v1-max-mib'),
    )
    .option('--gc-grace-days <n>', 'delete v2/ files no snapshot references after this many days (default 7)', (v) =>
      parsePositive(v, '--gc-grace-days'),
    )
    .option('--full', 'recompute every bin from the sources, not only the bins whose sources changed since the last build')
    .action(async (dirArg: string, opts: { rootKey: string[]; v1MaxMib?: number; gcGraceDays?: number; full?: boolean }) => {
      const result = await buildRegistry(ctx.resolvePath(dirArg), {
        rootKeys: await readKeys(ctx, opts.rootKey),
        ...(opts.full === true ? { full: true } : {}),
        ...(opts.v1MaxMib === undefined ? {} : { v1MaxBytes: Math.floor(opts.v1MaxMib * 1024 * 1024) }),
        ...(opts.gcGraceDays === undefined ? {} : { gcGraceMs: opts.gcGraceDays * 86_400_000 }),
      });
      const written = result.v2.written;
      const recomputed = result.v2.incremental
        ? `recomputed ${result.v2.binsRecomputed} of ${result.v2.bins} bins (incremental)`
        : `recomputed all ${result.v2.bins} bins`;
      output.result(result, () => [
        `built catalogue sequence ${result.sequence} at ${result.generatedAt}: ` +
          `${result.capabilities} capabilities, ${result.documentsWritten} document(s) changed`,
        `v2/: F=${result.v2.fanout}, ${recomputed}, ` +
          `wrote ${written.bins} bin(s), ${written.nodes} node(s), ${written.search} search pack(s), ${written.index} wire segment(s), ` +
          `${written.docs} document(s), ${written.publishers} publisher bin(s); collected ${result.v2.collected} old file(s)`,
        ...(result.v1Listed < result.capabilities
          ? [`v1/ lists the ${result.v1Listed} most recently published capabilities that fit its size limit (v2/ lists all)`]
          : []),
        `upload v2/ and v1/ with the two catalog.json files last (docs/deploy.md "Upload order")`,
      ]);
    });

  registry
    .command('serve')
    .description('serve the registry tree read-only on 127.0.0.1 for local use')
    .argument('<dir>', 'registry directory')
    .option('--port <n>', 'port (default: any free port)', parsePort, 0)
    .action(async (dirArg: string, opts: { port: number }) => {
      const served = await serveRegistry(ctx.resolvePath(dirArg), { port: opts.port });
      // One line, flushed before anything else, so scripts can read the URL (DESIGN §8 --json too).
      if (output.json) ctx.io.stdout(`${JSON.stringify({ url: served.url, remoteUrl: served.remoteUrl })}\n`);
      else ctx.io.stdout(`serving ${dirArg} at ${served.url} (remote URL: ${served.remoteUrl}); press Ctrl+C to stop\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void served.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parsePositive(value: string, flag: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n <= 0) throw new AdcapError('E_USAGE', `${flag} ${value} is not a positive number.`);
  return n;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new AdcapError('E_USAGE', `--port ${value} is not a port number (0-65535).`);
  return port;
}

async function readKeys(ctx: CliContext, files: readonly string[]): Promise<KeyFile[]> {
  const keys: KeyFile[] = [];
  for (const file of files) keys.push(await readKeyFile(ctx.resolvePath(file)));
  return keys;
}

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { describePermission, riskLevel } from '../../permissions/describe.js';
import { importMcpBundle, importMcpBundleAsOwn, type OwnImportedBundle } from '../../run/mcpb-import.js';
import { readKeyFile, type KeyFile } from '../../trust/keys.js';
import type { CliContext } from '../context.js';

/**
 * `adcap import <file.mcpb | folder> [-o out.adcap] [--sign key.json] [--allow-net host]... [--no-net]`
 * (docs/spec/mcp-runtime.md "MCP Bundles"): an MCP Bundle becomes a capability whose tools run
 * its server in the sandbox. Prints what the capability asks for and the values to give at install.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('import')
    .description('turn an MCP Bundle (.mcpb file or folder) into a capability package whose tools run its server sandboxed')
    .argument('<bundle>', 'a .mcpb file or an unpacked bundle folder')
    .option('-o, --out <file>', 'the package to write (default: <bundle name>.adcap beside it)')
    .option('--id <publisher/name>', 'the capability id (default: from the bundle author and name)')
    .option('--sign <keyfile>', 'sign with this key file (repeatable)', collect, [] as string[])
    .option('--allow-net <host>', 'a host the server may connect to (repeatable); none: any server', collect, [] as string[])
    .option('--no-net', 'the server needs no network at all')
    .action(async (bundleArg: string, opts: { out?: string; id?: string; sign: string[]; allowNet: string[]; net: boolean }) => {
      const bundle = ctx.resolvePath(bundleArg);
      const out =
        opts.out === undefined
          ? path.join(path.dirname(bundle), `${path.basename(bundle).replace(/\.mcpb$/, '')}.adcap`)
          : ctx.resolvePath(opts.out);
      const keys: KeyFile[] = [];
      for (const file of opts.sign) keys.push(await readKeyFile(ctx.resolvePath(file)));
      const imported = await importMcpBundle(bundle, {
        out,
        keys,
        allowNet: opts.allowNet,
        noNet: !opts.net,
        ...(opts.id === undefined ? {} : { id: opts.id }),
      });
      const m = imported.manifest;
      ctx.output.result(
        {
          out: imported.out,
          id: m.id,
          version: m.version,
          tools: (m.tools ?? []).map((t) => t.name),
          permissions: (m.permissions ?? []).map((p) => (p.scope === undefined ? p.id : `${p.id}:${p.scope}`)),
          inputs: imported.inputs,
          undeclared: imported.undeclared,
          signedBy: imported.signedBy,
        },
        () => [
          `wrote ${imported.out}: ${m.id}@${m.version}, ` +
            (imported.signedBy.length === 0 ? 'unsigned' : `signed by ${imported.signedBy.join(', ')}`),
          `tools: ${(m.tools ?? []).map((t) => t.name).join(', ')}`,
          ...(m.permissions ?? []).map((p) => `  may: ${describePermission(p)} (${riskLevel(p)} risk)`),
          ...(imported.undeclared.length === 0
            ? []
            : [`left out (listed by the server, not declared by the bundle): ${imported.undeclared.join(', ')}`]),
          ...imported.inputs.map(
            (i) =>
              `after installing, give ${i.sensitive ? 'the secret' : 'the setting'} "${i.title}" ` +
              `with: adcap secret set ${m.id} ${i.variable}`,
          ),
        ],
      );
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * `adcap add file.mcpb` (docs/spec/mcp-runtime.md "MCP Bundles"): imports the bundle into a
 * temporary package signed with the user's own publisher key (the key `adcap add` signs with),
 * hands its install request to `add` (the plan, the approval, the install: the own key is trusted
 * for this file only and the version is recorded as added by you from the bundle), then says which
 * values to give.
 */
export async function addMcpBundle(
  ctx: CliContext,
  bundle: string,
  opts: { id?: string; allowNet?: string[]; net?: boolean },
  configDir: string,
  addPackage: (request: OwnImportedBundle['request']) => Promise<void>,
): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'adcap-add-mcpb-'));
  try {
    const imported = await importMcpBundleAsOwn(bundle, {
      configDir,
      out: path.join(work, 'bundle.adcap'),
      allowNet: opts.allowNet ?? [],
      noNet: opts.net === false,
      ...(opts.id === undefined ? {} : { id: opts.id }),
    });
    ctx.output.note(`imported the MCP Bundle ${bundle} as ${imported.manifest.id}, signed with your own key ${imported.keyFile}`);
    await addPackage(imported.request);
    for (const i of imported.inputs) {
      ctx.output.note(
        `give ${i.sensitive ? 'the secret' : 'the setting'} "${i.title}" with: adcap secret set ${imported.manifest.id} ${i.variable}`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

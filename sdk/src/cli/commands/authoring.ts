import { constants } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import type { Command } from 'commander';
import semver from 'semver';
import { AdcapError, asAdcapError, isAdcapError } from '../../errors.js';
import { buildPackage, type SkillBuildProblem } from '../../format/package-build.js';
import { findSkills, initSkillsRepository } from '../../format/skill-repo.js';
import { readPackage } from '../../format/package-read.js';
import { generateKey, readKeyFile, trustedKeyFromPublicKey, writeKeyFile, type KeyFile, type TrustedKey } from '../../trust/keys.js';
import { buildSignedPackage, parsePackageEnvelope, signPackage, verifyPackage } from '../../trust/package-signature.js';
import type { CliContext } from '../context.js';
import { DEFAULT_LIST_ROWS, truncatedRows } from '../terminal-text.js';
import { idPartTitle, splitCapabilityId, toIdPart } from '../../util/capability-id.js';

/**
 * Authoring commands (DESIGN §8): init, build, sign, verify, inspect, keygen. They work on files
 * and never touch the home directory.
 */
export function register(program: Command, ctx: CliContext): void {
  const { output } = ctx;

  program
    .command('keygen')
    .description('create an Ed25519 signing key file (mode 0600)')
    .requiredOption('-o, --out <file>', 'where to write the key file')
    .option('--force', 'replace an existing file at --out (its key is lost)')
    .action(async (opts: { out: string; force?: boolean }) => {
      const file = ctx.resolvePath(opts.out);
      const key = generateKey();
      await writeKeyFile(file, key, { force: opts.force === true });
      output.result({ file, keyId: key.keyId, publicKey: key.publicKey }, () => [
        `wrote key ${key.keyId} to ${file}`,
        `public key (share this; verifiers pass it to --trust): ${key.publicKey}`,
        'keep the key file secret: it signs packages in your name',
      ]);
    });

  program
    .command('init')
    .description(
      'package a folder of skills (skills/*/SKILL.md or */SKILL.md): ' +
        'write capability.json and .adcapignore; in an empty folder, scaffold a new capability',
    )
    .argument('[dir]', 'directory to create it in', '.')
    .option('--id <publisher/name>', 'capability id (default: local/<directory name>)')
    .option('--name <text>', 'display name')
    .option('--force', 'replace an existing capability.json and .adcapignore (skills folders only)')
    .option(
      '--host <id[@range]>',
      `a host whose agents may run the new capability's tools (compat.agents; repeatable; default: ${DEFAULT_SCAFFOLD_HOSTS.join(', ')})`,
      collect,
      [] as string[],
    )
    .action(async (dirArg: string, opts: { id?: string; name?: string; force?: boolean; host: string[] }) => {
      const dir = ctx.resolvePath(dirArg);
      // A folder that already holds skills (a cloned skills repository) is packaged as it is.
      if ((await findSkills(dir)).length > 0) {
        const id = opts.id ?? `local/${slugify(basename(dir))}`;
        const init = await initSkillsRepository(dir, {
          id,
          ...(opts.force === true ? { force: true } : {}),
          ...(opts.name === undefined ? {} : { name: opts.name }),
        });
        const skillPaths = init.skills.map((s) => s.path);
        output.result(
          {
            dir,
            id,
            files: init.wrote,
            kept: init.kept,
            skills: skillPaths,
            manifest: init.manifest,
            notes: init.notes,
            leftOut: init.leftOut,
          },
          () => [
            `wrote ${init.wrote.join(' and ')} for ${id} in ${dir}, with ${skillPaths.length} skill${skillPaths.length === 1 ? '' : 's'}:`,
            ...skillPaths.map((p) => `  ${p}`),
            // docs/skills.md: a skill breaking a rule is left out (and listed in .adcapignore), the rest builds.
            ...init.leftOut.map((l) => `left out ${l.path} [${l.rule}]: ${l.message}`),
            ...init.kept.map((f) => `kept the existing ${f} (--force replaces it)`),
            ...init.notes.map((n) => `note: ${n}`),
            `next: adcap build ${displayPath(ctx, dir)} -o ${id.split('/')[1] ?? 'skills'}.adcap`,
          ],
        );
        return;
      }
      const hosts = scaffoldHosts(opts.host);
      const scaffold = scaffoldCapability(dir, { ...opts, hosts });
      await writeScaffold(dir, scaffold.files);
      output.result({ dir, id: scaffold.id, files: scaffold.files.map((f) => f.path), hosts }, () => [
        `created ${scaffold.id} in ${dir}:`,
        ...scaffold.files.map((f) => `  ${f.path}`),
        // spec §11: a host the capability does not list refuses its tools.
        `its tools run in these hosts (compat.agents): ${Object.entries(hosts)
          .map(([id, range]) => `${id} ${range}`)
          .join(', ')}; others refuse them, so add yours with --host or in capability.json`,
        `next: adcap build ${displayPath(ctx, dir)} -o ${scaffold.name}.adcap`,
      ]);
    });

  program
    .command('build')
    .description('build a .adcap package from a capability directory')
    .argument('<dir>', 'capability directory (holds capability.json)')
    .requiredOption('-o, --out <file>', 'package file to write')
    .option('--sign <keyfile>', 'sign with this key file (repeatable)', collect, [] as string[])
    .action(async (dirArg: string, opts: { out: string; sign: string[] }) => {
      const dir = ctx.resolvePath(dirArg);
      const out = ctx.resolvePath(opts.out);
      const keys = await readKeys(ctx, opts.sign);
      let built;
      try {
        built =
          keys.length > 0
            ? await buildSignedPackage(dir, { out, keys })
            : { ...(await buildPackage(dir, { out })), signedBy: [] as string[] };
      } catch (error) {
        // Every problem of every skill, one per line, with its rule and fix.
        // Only skill problems carry a rule and a fix; a schema error's `problems` are pointers.
        const listed: unknown = isAdcapError(error) ? error.details.problems : undefined;
        const problems = Array.isArray(listed) && listed.every(isSkillBuildProblem) ? listed : undefined;
        if (problems !== undefined) {
          output.note(`${problems.length} problems to fix before this builds:`);
          for (const p of problems) output.note(`  ${p.path}/SKILL.md [${p.rule}] ${p.message}\n    fix: ${p.fix}`);
        }
        throw error;
      }
      for (const warning of built.warnings) output.note(`warning: ${warning.message}`);
      output.result(
        {
          file: built.file,
          id: built.manifest.id,
          version: built.manifest.version,
          manifestSha256: built.manifestSha256,
          archiveSha256: built.archiveSha256,
          size: built.size,
          signedBy: built.signedBy,
          warnings: built.warnings,
        },
        () => [
          `built ${built.manifest.id}@${built.manifest.version} -> ${built.file} (${built.size} bytes)`,
          `manifestSha256 ${built.manifestSha256}`,
          built.signedBy.length > 0
            ? `signed by ${built.signedBy.join(', ')}`
            : 'unsigned (sign it with: adcap sign <file> --key <keyfile>)',
        ],
      );
    });

  program
    .command('sign')
    .description('add signatures to a package (existing signatures are kept)')
    .argument('<file>', 'package file')
    .requiredOption('--key <keyfile>', 'key file to sign with (repeatable)', collect, [] as string[])
    .option('-o, --out <file>', 'write the signed package here instead of replacing <file>')
    .action(async (fileArg: string, opts: { key: string[]; out?: string }) => {
      const keys = await readKeys(ctx, opts.key);
      const signed = await signPackage(ctx.resolvePath(fileArg), keys, opts.out === undefined ? {} : { out: ctx.resolvePath(opts.out) });
      const signers = signed.envelope.signatures.map((s) => s.keyId);
      output.result(
        {
          file: signed.file,
          id: signed.manifest.id,
          version: signed.manifest.version,
          manifestSha256: signed.manifestSha256,
          archiveSha256: signed.archiveSha256,
          size: signed.size,
          signatures: signers,
          added: signed.added,
        },
        () => [
          `signed ${signed.manifest.id}@${signed.manifest.version} -> ${signed.file}`,
          signed.added.length > 0 ? `added ${signed.added.join(', ')}` : 'every key had already signed; nothing added',
          `signatures: ${signers.join(', ')}`,
        ],
      );
    });

  program
    .command('verify')
    .description('verify a package: structure, hashes, manifest and, with --trust, its signatures')
    .argument('<file>', 'package file')
    .option(
      '--trust <publicKey>',
      'trusted publisher public key, base64 (repeatable); requires a valid signature by one of them',
      collect,
      [] as string[],
    )
    .action(async (fileArg: string, opts: { trust: string[] }) => {
      const trusted: TrustedKey[] = opts.trust.map((key, index) => {
        try {
          return trustedKeyFromPublicKey(key);
        } catch (error) {
          throw new AdcapError('E_USAGE', `--trust value ${index + 1} is not a public key: ${(error as Error).message}`);
        }
      });
      const checkSigners = trusted.length > 0;
      const pkg = await verifyPackage(ctx.resolvePath(fileArg), checkSigners ? { trusted, requireSignature: true } : {});
      output.result(
        { ok: true, id: pkg.manifest.id, version: pkg.manifest.version, manifestSha256: pkg.manifestSha256, signedBy: pkg.signedBy },
        () => [
          `ok ${pkg.manifest.id}@${pkg.manifest.version}`,
          `manifestSha256 ${pkg.manifestSha256}`,
          checkSigners
            ? `signed by trusted key ${pkg.signedBy.join(', ')}`
            : pkg.signed
              ? 'signature present but signers not checked: pass --trust <publisher public key> to check who signed it'
              : 'not signed',
        ],
      );
    });

  program
    .command('inspect')
    .description('show what a package contains (after verifying its structure and hashes)')
    .argument('<file>', 'package file')
    .action(async (fileArg: string) => {
      const pkg = await readPackage(ctx.resolvePath(fileArg));
      const envelope = pkg.signatureBytes === null ? null : parsePackageEnvelope(pkg.signatureBytes);
      const signature = envelope === null ? null : { keyIds: envelope.signatures.map((s) => s.keyId), payload: envelope.payload };
      const m = pkg.manifest;
      output.result(
        {
          manifest: m,
          manifestSha256: pkg.manifestSha256,
          archiveSha256: pkg.archiveSha256,
          size: pkg.size,
          entries: pkg.entries,
          signature,
        },
        () => [
          `${m.id}@${m.version}  ${m.name}`,
          `  ${m.summary}`,
          `manifestSha256 ${pkg.manifestSha256}`,
          `archiveSha256  ${pkg.archiveSha256}`,
          `size           ${pkg.size} bytes, ${pkg.entries.length} entries`,
          ...section(
            'skills',
            (m.skills ?? []).map((s) => s.path),
          ),
          ...section(
            'tools',
            (m.tools ?? []).map((t) => `${t.name} (${t.runtime.type}): ${t.description}`),
          ),
          ...section(
            'workflows',
            (m.workflows ?? []).map((w) => w.path),
          ),
          ...section(
            'permissions',
            (m.permissions ?? []).map((p) => `${p.id}${p.scope === undefined ? '' : `:${p.scope}`}: ${p.reason}`),
          ),
          ...section(
            'resources',
            (m.resources ?? []).map((r) => `${r.id} (${r.kind}, ${r.size} bytes)`),
          ),
          ...section(
            'dependencies',
            Object.entries(m.dependencies ?? {}).map(([id, range]) => `${id} ${range}`),
          ),
          // A package may have thousands of entries; --json lists them all.
          ...section('entries', truncatedRows(pkg.entries, DEFAULT_LIST_ROWS, 'use --json to list them all')),
          signature === null ? 'signature: none' : `signature: ${signature.keyIds.join(', ')} (not checked; use adcap verify --trust)`,
        ],
      );
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function section(title: string, lines: string[]): string[] {
  return lines.length === 0 ? [] : [`${title}:`, ...lines.map((line) => `  ${line}`)];
}

async function readKeys(ctx: CliContext, files: readonly string[]): Promise<KeyFile[]> {
  const keys: KeyFile[] = [];
  for (const file of files) keys.push(await readKeyFile(ctx.resolvePath(file)));
  return keys;
}

function displayPath(ctx: CliContext, path: string): string {
  const rel = relative(ctx.io.cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

interface ScaffoldFile {
  path: string;
  content: string;
  executable?: boolean;
}

/** A name made of lowercase letters, digits and single hyphens (spec §3.1), at most 64 chars. */
export function slugify(text: string): string {
  return toIdPart(text, 'my-capability');
}

/** The files of a new capability that builds as it is: one skill and one node tool. */
/**
 * The hosts a new capability with tools lists in compat.agents unless told otherwise (spec §11: an
 * unlisted host refuses tools): the Arcotheon app and CLI, and AgentDock, the host the integration
 * contract is written for (docs/spec/host-integration-contract.txt).
 */
export const DEFAULT_SCAFFOLD_HOSTS = ['arcotheon', 'agentdock'] as const;

/** `--host id[@range]` values as compat.agents (every version when no range is given). */
export function scaffoldHosts(values: readonly string[]): Record<string, string> {
  if (values.length === 0) return Object.fromEntries(DEFAULT_SCAFFOLD_HOSTS.map((id) => [id, '*']));
  const hosts: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('@');
    const id = at < 0 ? value : value.slice(0, at);
    const range = at < 0 ? '*' : value.slice(at + 1);
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(id) || semver.validRange(range) === null) {
      throw new AdcapError('E_USAGE', `--host ${value} is not a host id with an optional range, such as agentdock or agentdock@>=2.0.0.`);
    }
    hosts[id] = range;
  }
  return hosts;
}

export function scaffoldCapability(
  dir: string,
  options: { id?: string; name?: string; hosts?: Record<string, string> } = {},
): { id: string; name: string; files: ScaffoldFile[] } {
  let id: string;
  let name: string;
  if (options.id !== undefined) {
    const parts = splitCapabilityId(options.id);
    if (parts === null) {
      throw new AdcapError(
        'E_USAGE',
        `--id ${JSON.stringify(options.id)} is not publisher/name ` +
          '(lowercase letters, digits and single hyphens, each part 1-64 characters).',
      );
    }
    id = options.id;
    name = parts.name;
  } else {
    name = slugify(basename(dir));
    id = `local/${name}`;
  }
  const displayName = (options.name ?? idPartTitle(name)).slice(0, 80);
  const manifest = {
    adcap: '1.0',
    id,
    version: '0.1.0',
    name: displayName,
    summary: `${displayName}: a skill and a tool (edit this summary).`,
    readme: 'README.md',
    skills: [{ path: `skills/${name}` }],
    tools: [
      {
        name: 'greet',
        description: 'Returns a greeting for the given name.',
        runtime: { type: 'node', entry: 'tools/greet.mjs' },
        inputSchema: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1, maxLength: 200, description: 'who to greet' } },
          required: ['name'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { greeting: { type: 'string' } },
          required: ['greeting'],
          additionalProperties: false,
        },
        timeoutMs: 10000,
      },
    ],
    compat: { agents: options.hosts ?? scaffoldHosts([]), runtimes: { node: '>=18' } },
  };
  const files: ScaffoldFile[] = [
    { path: 'capability.json', content: `${JSON.stringify(manifest, null, 2)}\n` },
    {
      path: '.adcapignore',
      content: [
        '# Paths left out of the package (gitignore syntax).',
        '# Never package a signing key or a built package.',
        '*.adcap',
        'key.json',
        '*.key.json',
        'node_modules/',
        '.git/',
        '.DS_Store',
        '',
      ].join('\n'),
    },
    {
      path: 'README.md',
      content: `# ${displayName}\n\nA capability for Arcotheon. Build it with \`adcap build . -o ${name}.adcap\`.\n`,
    },
    {
      path: `skills/${name}/SKILL.md`,
      content: [
        '---',
        `name: ${name}`,
        `description: Greets people by name using the greet tool. Use when the user asks to be greeted.`,
        '---',
        '',
        `# ${displayName}`,
        '',
        'When the user asks for a greeting, call the `greet` tool with their name and reply with',
        'the greeting it returns.',
        '',
      ].join('\n'),
    },
    {
      path: 'tools/greet.mjs',
      content: [
        '// The greet tool. A tool speaks the wire protocol of spec §7: the host writes one',
        '// {"type":"call"} JSON line on stdin; the tool answers with one {"type":"result"} or',
        '// {"type":"error"} JSON line on stdout.',
        "import { createInterface } from 'node:readline';",
        '',
        'function greet(input) {',
        '  return { greeting: `Hello, ${input.name}!` };',
        '}',
        '',
        'function send(message) {',
        '  process.stdout.write(`${JSON.stringify(message)}\\n`);',
        '}',
        '',
        'const lines = createInterface({ input: process.stdin });',
        'for await (const line of lines) {',
        "  if (line.trim() === '') continue;",
        '  let message;',
        '  try {',
        '    message = JSON.parse(line);',
        '  } catch {',
        "    send({ type: 'error', message: 'the host sent a line that is not JSON' });",
        '    break;',
        '  }',
        "  if (message.type !== 'call') continue;",
        '  try {',
        "    send({ type: 'result', output: greet(message.input) });",
        '  } catch (error) {',
        "    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });",
        '  }',
        '  break;',
        '}',
        'process.stdin.destroy();',
        '',
      ].join('\n'),
    },
  ];
  return { id, name, files };
}

/** Writes every file with O_EXCL after checking none exists, so init never overwrites work. */
async function writeScaffold(dir: string, files: readonly ScaffoldFile[]): Promise<void> {
  for (const file of files) {
    const target = join(dir, file.path);
    const exists = await stat(target).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw asAdcapError(error, `Cannot check ${target}`);
      },
    );
    if (exists) {
      throw new AdcapError('E_USAGE', `${target} already exists; run "adcap init" in an empty directory or pass a new directory name.`);
    }
  }
  for (const file of files) {
    const target = join(dir, file.path);
    try {
      await mkdir(dirname(target), { recursive: true });
      const handle = await open(
        target,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
        file.executable === true ? 0o755 : 0o644,
      );
      try {
        await handle.writeFile(file.content);
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw asAdcapError(error, `Cannot write ${target}`);
    }
  }
}

function isSkillBuildProblem(value: unknown): value is SkillBuildProblem {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return typeof p['path'] === 'string' && typeof p['rule'] === 'string' && typeof p['message'] === 'string' && typeof p['fix'] === 'string';
}

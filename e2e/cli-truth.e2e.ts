import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeVersionAtLeast } from '../sdk/src/cli/node-check.js';
import { assertBuilt } from './helpers/adcap.js';

/**
 * A CLI that tells the truth, through the BUILT package bin
 * (sdk/dist/cli/bin.js, what `npm install` links as `adcap`) as real child processes: `show` and
 * `list --json` for a sideloaded capability, the error messages a user acts on, long lists cut
 * with a count, hostile text escaped, old Node refused, secret keys never packaged.
 */
const BIN = join(import.meta.dirname, '..', 'sdk', 'dist', 'cli', 'bin.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let work: string;
let home: string;

/** `adcap --home <home> ...args` with the embedded example registry as its only remote. */
function adcap(args: string[], options: { node?: string; env?: NodeJS.ProcessEnv } = {}): Run {
  const r = spawnSync(options.node ?? process.execPath, [BIN, '--home', home, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: options.env ?? process.env,
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(run: Run): Run {
  if (run.code !== 0) throw new Error(`adcap exited ${run.code}: ${run.stderr}`);
  return run;
}

function errorLine(run: Run): string {
  expect(run.code).toBe(1);
  const lines = run.stderr.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

beforeAll(async () => {
  await assertBuilt();
  work = await mkdtemp(join(tmpdir(), 'adcap-e2e-truth-'));
  home = join(work, 'home');
  // A capability made the way a user makes one: scaffolded, then given a permission its tool needs
  // and a summary with terminal escape sequences (hostile text), built unsigned and sideloaded.
  ok(adcap(['init', 'greeter', '--id', 'acme/greeter']));
  const manifestFile = join(work, 'greeter', 'capability.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown> & { tools: Array<Record<string, unknown>> };
  // Terminal escape sequences and bidi controls are refused at build (tested below, and in
  // manifest-refuses-bidi-controls.test.ts); a zero-width space is valid text that a terminal would
  // hide, so it must still reach the terminal escaped.
  manifest['summary'] = 'Greets red\u200b people.';
  manifest['permissions'] = [{ id: 'net:connect', scope: 'api.example.com', reason: 'Looks up names.' }];
  manifest.tools[0]!['permissions'] = ['net:connect:api.example.com'];
  await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
  ok(adcap(['build', 'greeter', '-o', 'greeter.adcap']));
  ok(adcap(['install', './greeter.adcap', '--allow-unsigned', '--yes']));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('item 12: show and list tell what is installed, from any source', () => {
  it('show works for a sideloaded capability: skills with their directories, tools with their input fields', () => {
    const human = ok(adcap(['show', 'acme/greeter']));
    expect(human.stdout).toContain('acme/greeter - Greeter (not listed by any remote)');
    expect(human.stdout).toMatch(/installed: 0\.1\.0 \(unsigned, sideloaded from .*greeter\.adcap\)/);
    expect(human.stdout).toContain(`greeter  ${join(home, 'packages', 'acme', 'greeter', '0.1.0', 'skills', 'greeter')}`);
    expect(human.stdout).toContain('greet (node): Returns a greeting for the given name.');
    expect(human.stdout).toContain('needs: net:connect:api.example.com');
    expect(human.stdout).toContain('name (string, required) - who to greet');

    const shown = JSON.parse(ok(adcap(['show', 'acme/greeter', '--json'])).stdout) as {
      remote: string | null;
      versions: Record<string, unknown>;
      installed: {
        version: string;
        status: string;
        source: { kind: string };
        skills: unknown[];
        tools: Array<{ name: string; input: unknown }>;
      };
    };
    expect(shown.remote).toBeNull();
    expect(shown.versions).toEqual({});
    expect(shown.installed).toMatchObject({ version: '0.1.0', status: 'unsigned', source: { kind: 'file' } });
    expect(shown.installed.skills).toEqual([
      { name: 'greeter', path: 'skills/greeter', dir: join(home, 'packages', 'acme', 'greeter', '0.1.0', 'skills', 'greeter') },
    ]);
    expect(shown.installed.tools).toEqual([
      {
        name: 'greet',
        description: 'Returns a greeting for the given name.',
        runtime: 'node',
        permissions: ['net:connect:api.example.com'],
        input: [{ name: 'name', required: true, type: 'string', description: 'who to greet' }],
      },
    ]);
  });

  it('show of a capability a remote lists still shows the catalogue, with installed: null when it is not installed', () => {
    const shown = JSON.parse(ok(adcap(['show', 'acme/csv-summary', '--json'])).stdout) as {
      remote: string;
      latest: string;
      installed: unknown;
      versions: Record<string, unknown>;
    };
    expect(shown).toMatchObject({ remote: 'examples', latest: '1.0.0', installed: null });
    expect(Object.keys(shown.versions)).toEqual(['1.0.0']);
    expect(errorLine(adcap(['show', 'acme/nothing-here']))).toBe(
      'error E_NOT_FOUND: acme/nothing-here is not installed and no remote lists it; search for it with "adcap search".',
    );
  });

  it('list --json gives each skill directory', () => {
    const list = JSON.parse(ok(adcap(['list', '--json'])).stdout) as Array<{ id: string; skills: Array<{ name: string; dir: string }> }>;
    expect(list.map((c) => [c.id, c.skills])).toEqual([
      [
        'acme/greeter',
        [{ name: 'greeter', path: 'skills/greeter', dir: join(home, 'packages', 'acme', 'greeter', '0.1.0', 'skills', 'greeter') }],
      ],
    ]);
    expect(existsSync(join(list[0]!.skills[0]!.dir, 'SKILL.md'))).toBe(true);
  });
});

describe('item 13: error messages that lead somewhere', () => {
  it('E_INPUT names the accepted fields and gives no "vendor data" advice', () => {
    const line = errorLine(adcap(['run', 'acme/greeter', 'greet', '--input', '{"nme":"Ada"}']));
    expect(line).toMatch(/^error E_INPUT: The input of tool greet does not match its inputSchema: .*unknown field "nme"/);
    expect(line).toContain('It accepts: "name" (string, required).');
    expect(line).not.toMatch(/vendor|"x"/);
  });

  it('E_NOT_GRANTED gives the adcap grants command, and that command makes the tool run', () => {
    ok(adcap(['grants', 'acme/greeter', '--revoke', 'net:connect:api.example.com']));
    const line = errorLine(adcap(['run', 'acme/greeter', 'greet', '--input', '{"name":"Ada"}']));
    expect(line).toMatch(/^error E_NOT_GRANTED: /);
    const command = /"adcap (grants [^"]+)"/.exec(line)?.[1];
    expect(command).toBe('grants acme/greeter --grant net:connect:api.example.com');
    ok(adcap(command!.split(' ')));
    const output = JSON.parse(ok(adcap(['run', 'acme/greeter', 'greet', '--input', '{"name":"Ada"}', '--json'])).stdout) as unknown;
    expect(output).toEqual({ greeting: 'Hello, Ada!' });
  });

  it('E_NOT_INSTALLED on uninstall does not suggest installing', () => {
    const line = errorLine(adcap(['uninstall', 'acme/never-installed']));
    expect(line).toBe(
      'error E_NOT_INSTALLED: acme/never-installed is not installed, ' +
        'so there is nothing to uninstall; "adcap list" shows what is installed.',
    );
  });

  it('E_ENTITLEMENT says what the host needs (the CLI has no sign-in)', () => {
    const line = errorLine(adcap(['install', 'acme/contract-review', '--yes']));
    // The CLI says what it is as a host (no sign-in to try), in its own words: no SDK callback named.
    expect(line).toBe(
      'error E_ENTITLEMENT: acme/contract-review@1.0.0 is an entitled download, and the adcap command has no sign-in, ' +
        'so it cannot install or run entitled content; use an app that can authorise entitled downloads.',
    );
    expect(line).not.toMatch(/\bsign in\b|callback|host contract/i);
  });

  it('E_UNTRUSTED on publish points at registry add-publisher', async () => {
    const root = JSON.parse(ok(adcap(['keygen', '-o', 'root.key.json', '--json'])).stdout) as { publicKey: string };
    const registered = JSON.parse(ok(adcap(['keygen', '-o', 'acme.key.json', '--json'])).stdout) as { publicKey: string };
    const other = JSON.parse(ok(adcap(['keygen', '-o', 'other.key.json', '--json'])).stdout) as { keyId: string };
    expect(root.publicKey).not.toBe(registered.publicKey);
    ok(adcap(['registry', 'init', 'reg', '--name', 'truth', '--root-key', 'root.key.json']));
    ok(adcap(['registry', 'add-publisher', 'reg', 'acme', '--key', registered.publicKey]));
    ok(adcap(['sign', 'greeter.adcap', '--key', 'other.key.json', '-o', 'greeter-other.adcap']));
    const line = errorLine(adcap(['registry', 'publish', 'reg', 'greeter-other.adcap']));
    expect(line).toBe(
      `error E_UNTRUSTED: acme/greeter@0.1.0 is signed by key ${other.keyId}, which is not a key of publisher "acme" here; ` +
        'if the key is theirs, add it with "adcap registry add-publisher <dir> acme --key <its public key, base64>", ' +
        'or sign with a key already registered.',
    );
    // Signed by the registered key, the same package publishes.
    ok(adcap(['sign', 'greeter.adcap', '--key', 'acme.key.json', '-o', 'greeter-acme.adcap']));
    expect(JSON.parse(ok(adcap(['registry', 'publish', 'reg', 'greeter-acme.adcap', '--json'])).stdout)).toMatchObject({
      created: true,
      id: 'acme/greeter',
    });
  });
});

describe('item 14: long lists are cut with a count, hostile text is escaped', () => {
  it('search prints the first rows and how many more there are; --all and --json give every hit', () => {
    const all = JSON.parse(ok(adcap(['search', '--json'])).stdout) as Array<{ id: string }>;
    expect(all.length).toBeGreaterThan(3);
    const cut = ok(adcap(['search', '--limit', '3']))
      .stdout.trim()
      .split('\n');
    expect(cut).toHaveLength(4);
    expect(cut.slice(0, 3).map((l) => l.split('@')[0])).toEqual(all.slice(0, 3).map((h) => h.id));
    expect(cut[3]).toBe(`… and ${all.length - 3} more; use --limit <n> or --all to see more, or narrow the search`);
    expect(
      ok(adcap(['search', '--all']))
        .stdout.trim()
        .split('\n'),
    ).toHaveLength(all.length);
    expect(JSON.parse(ok(adcap(['search', '--limit', '3', '--json'])).stdout)).toHaveLength(3);
    expect(adcap(['search', '--limit', '3', '--all']).code).toBe(2);
  });

  it('show prints a summary with a hidden character as a visible escape', () => {
    const { stdout } = ok(adcap(['show', 'acme/greeter']));
    expect(stdout).toContain('Greets red\\u{200b} people.');
    expect(stdout.includes('\u001b') || stdout.includes('\u200b')).toBe(false);
  });

  it('build refuses a summary with terminal escape sequences, naming the field, and prints no skill-problem list for it', async () => {
    ok(adcap(['init', 'painter', '--id', 'acme/painter']));
    const manifestFile = join(work, 'painter', 'capability.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>;
    manifest['summary'] = 'Paints \u001b[31mred\u001b[0m.';
    await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
    const refused = adcap(['build', 'painter', '-o', 'painter.adcap']);
    expect(errorLine(refused)).toMatch(/^error E_SCHEMA: The manifest does not match its schema: \/summary /);
    expect(refused.stderr).not.toContain('problems to fix before this builds');
    expect(refused.stderr.includes('\u001b')).toBe(false);
  });
});

describe('item 15: an old Node is refused with one clear line', () => {
  /** A Node older than 22.12: the system one when it is (Debian's is 20), else this one posing as 20. */
  function oldNode(): { node: string; env: NodeJS.ProcessEnv } {
    for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
      if (!existsSync(candidate)) continue;
      const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
      if (!nodeVersionAtLeast(version)) return { node: candidate, env: process.env };
    }
    const preload = `data:text/javascript,${encodeURIComponent("Object.defineProperty(process.versions, 'node', { value: '20.11.1' });")}`;
    return { node: process.execPath, env: { ...process.env, NODE_OPTIONS: `--import=${preload}` } };
  }

  it('the adcap bin prints one error line and exits 1 before loading anything else', () => {
    const old = oldNode();
    const run = adcap(['list'], old);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(
        String.raw`^error E_RUNTIME_UNSUPPORTED: adcap needs Node\.js 22\.12 or newer and this is Node\.js 20\.\d+\.\d+; ` +
          String.raw`get Node\.js 22 \(npm install -g --prefix ~\/node22 node@22, then put ~\/node22\/bin first on PATH\) ` +
          String.raw`and run adcap again\.\n$`,
      ),
    );
    // The same bin on this Node runs.
    expect(ok(adcap(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('npm install in the repository runs build/check-node.cjs first, which refuses the old Node with one line', () => {
    const root = join(import.meta.dirname, '..');
    const pkg = JSON.parse(
      execFileSync(process.execPath, ['-p', 'JSON.stringify(require("./package.json"))'], { cwd: root, encoding: 'utf8' }),
    ) as { scripts: Record<string, string>; engines: { node: string } };
    expect(pkg.scripts['preinstall']).toBe('node build/check-node.cjs');
    expect(pkg.engines.node).toBe('>=22.12');
    const old = oldNode();
    const refused = spawnSync(old.node, [join(root, 'build', 'check-node.cjs')], { encoding: 'utf8', env: old.env });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        String.raw`^error: Arcotheon needs Node\.js 22\.12 or newer and this is Node\.js 20\.\d+\.\d+; ` +
          String.raw`get Node\.js 22 \(npm install -g --prefix ~\/node22 node@22, then put ~\/node22\/bin first on PATH\) ` +
          String.raw`and run npm install again\.\n$`,
      ),
    );
    const accepted = spawnSync(process.execPath, [join(root, 'build', 'check-node.cjs')], { encoding: 'utf8' });
    expect([accepted.status, accepted.stderr]).toEqual([0, '']);
  });
});

describe('item 17: adcap build never packages a secret key', () => {
  it('refuses a capability folder holding a key file or a PEM private key (E_SEMANTIC names it); .adcapignore keeps them out', async () => {
    ok(adcap(['init', 'leaky', '--id', 'acme/leaky']));
    // A key file under a name the scaffold's .adcapignore does not cover.
    ok(adcap(['keygen', '-o', join('leaky', 'signing.json')]));
    const line = errorLine(adcap(['build', 'leaky', '-o', 'leaky.adcap']));
    expect(line).toBe(
      'error E_SEMANTIC: signing.json holds an Arcotheon signing key file (it has a "secretKey") ' +
        'and would be published inside the package; move it out of the capability ' +
        'folder (keep keys under your user config directory) or list it in .adcapignore.',
    );
    expect(existsSync(join(work, 'leaky.adcap'))).toBe(false);
    await rm(join(work, 'leaky', 'signing.json'));
    const pem = execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519'], { encoding: 'utf8' });
    await writeFile(join(work, 'leaky', 'tools', 'tls.pem'), pem);
    expect(errorLine(adcap(['build', 'leaky', '-o', 'leaky.adcap']))).toMatch(
      /^error E_SEMANTIC: tools\/tls\.pem holds a private key \("-----BEGIN PRIVATE KEY-----"\)/,
    );
    await writeFile(join(work, 'leaky', '.adcapignore'), `${await readFile(join(work, 'leaky', '.adcapignore'), 'utf8')}*.pem\n`);
    ok(adcap(['build', 'leaky', '-o', 'leaky.adcap']));
  });
});

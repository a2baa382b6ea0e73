// In-process: the messages a user acts on name the next step that works.
// (e2e/cli-truth.e2e.ts runs the same through the built bin, with the entitlement and publish cases.)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap } from './run-cli.js';

let work: string;
let home: string;
const run = (argv: string[]) =>
  // Not a user's run: no built-in registry, so the test's own (or none) is the only one.
  adcap([...argv, '--home', home], { cwd: work, env: { ARCOTHEON_EMBEDDED_REGISTRY: '', PATH: process.env.PATH } });

async function ok(argv: string[]): Promise<string> {
  const r = await run(argv);
  if (r.code !== 0) throw new Error(`adcap ${argv.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-cli-messages-'));
  home = join(work, 'home');
  await ok(['init', 'lookup', '--id', 'acme/lookup']);
  const file = join(work, 'lookup', 'capability.json');
  const manifest = JSON.parse(await readFile(file, 'utf8')) as { permissions?: unknown[]; tools: Array<{ permissions?: string[] }> };
  manifest.permissions = [
    { id: 'net:connect', scope: 'api.example.com', reason: 'Looks up names.' },
    { id: 'fs:read', scope: 'workspace', reason: 'Reads name lists.' },
  ];
  manifest.tools[0]!.permissions = ['net:connect:api.example.com', 'fs:read:workspace'];
  await writeFile(file, JSON.stringify(manifest));
  await ok(['build', 'lookup', '-o', 'lookup.adcap']);
  await ok(['install', './lookup.adcap', '--allow-unsigned', '--yes']);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('messages that lead somewhere', () => {
  it('E_INPUT lists the accepted fields, with no "vendor data under x" advice', async () => {
    const r = await run(['run', 'acme/lookup', 'greet', '--input', '{"name":"Ada","loud":true}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error E_INPUT: The input of tool greet does not match its inputSchema: ' +
        '/ has the unknown field "loud" (additionalProperties). It accepts: "name" (string, required).\n',
    );
  });

  it('E_NOT_GRANTED gives one adcap grants command for every missing grant, and --grant is repeatable', async () => {
    await ok(['grants', 'acme/lookup', '--revoke', 'net:connect:api.example.com', '--revoke', 'fs:read:workspace']);
    const r = await run(['run', 'acme/lookup', 'greet', '--input', '{"name":"Ada"}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error E_NOT_GRANTED: The tool greet of acme/lookup needs permissions ' +
        'that are not granted (net:connect:api.example.com, fs:read:workspace); ' +
        'grant them in the host app, ' +
        'or with "adcap grants acme/lookup --grant net:connect:api.example.com --grant fs:read:workspace", to run this tool.\n',
    );
    const command = /"adcap (grants [^"]+)"/.exec(r.stderr)?.[1] ?? '';
    const granted = JSON.parse(await ok([...command.split(' '), '--json'])) as { granted: string[] };
    expect(granted.granted).toEqual(['fs:read:workspace', 'net:connect:api.example.com']);
  });

  it('E_NOT_INSTALLED on uninstall says there is nothing to uninstall, not how to install', async () => {
    const r = await run(['uninstall', 'acme/elsewhere']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error E_NOT_INSTALLED: acme/elsewhere is not installed, so there is nothing to uninstall; "adcap list" shows what is installed.\n',
    );
  });
});

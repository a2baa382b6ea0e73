// The organisation policy on the command line: `adcap remote list` and `adcap remote show` say which registries the
// organisation policy manages (added for the user, cannot be removed) and which configured ones it
// leaves unused; `remote update` and `search` use the policy's registries. Real signed registries
// over file://, a real policy file in a temporary folder (ARCOTHEON_POLICY), the CLI in-process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { adcap, type CliRun } from './run-cli.js';

let corp: LifecycleRegistry;
let other: LifecycleRegistry;
let work: string;
let policyPath: string;
let home: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-cli-remote-policy-'));
  corp = await LifecycleRegistry.create();
  await corp.publishAll([{ id: 'acme/allowed', version: '1.0.0' }]);
  other = await LifecycleRegistry.create();
  await other.publishAll([{ id: 'elsewhere/thing', version: '1.0.0' }]);
  policyPath = join(work, 'policy.json');
  await writeFile(
    policyPath,
    JSON.stringify({
      policy: 1,
      organisation: 'Acme IT',
      remotes: [{ name: 'corp', url: corp.registry.v1Url, rootKeys: [corp.registry.rootKey.publicKey] }],
    }),
  );
  home = join(work, 'home');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** `adcap <argv> --home <home>`, with the policy in force or without any. */
function run(argv: string[], withPolicy: boolean): Promise<CliRun> {
  return adcap([...argv, '--home', home], {
    cwd: work,
    env: { ARCOTHEON_EMBEDDED_REGISTRY: '', ...(withPolicy ? { ARCOTHEON_POLICY: policyPath } : {}) },
  });
}

function ok(r: CliRun): string {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return r.stdout;
}

describe('adcap remote list and remote show under an organisation policy', () => {
  it('without a policy: no marks, and show prints the URL, the pinned key and the verified catalogue', async () => {
    ok(await run(['remote', 'add', 'other', other.registry.v1Url, '--root-key', other.registry.rootKey.publicKey], false));
    const list = ok(await run(['remote', 'list'], false));
    expect(list).toMatch(/^other\tfile:\/\/\S+\tsequence \d+\n$/);
    expect(JSON.parse(ok(await run(['remote', 'list', '--json'], false)))).toEqual([
      expect.objectContaining({ name: 'other', managed: null, used: true }),
    ]);

    const show = ok(await run(['remote', 'show', 'other'], false));
    expect(show).toContain(`  url: ${other.registry.v1Url}`);
    expect(show).toContain(`  root key: ${other.registry.rootKey.publicKey}`);
    expect(show).toMatch(/ {2}catalogue: ".+" sequence \d+, 1 capabilities, verified \d{4}-/);
    expect(show).not.toMatch(/Managed by|not used/);
    const missing = await run(['remote', 'show', 'nope'], false);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/E_NOT_FOUND.*There is no remote named "nope"/s);
  });

  it('with a policy: its registry is listed as managed, cannot be removed; a configured one it leaves out is marked unused', async () => {
    const list = ok(await run(['remote', 'list'], true));
    const lines = list.trimEnd().split('\n');
    // A registry on this computer is read by remote list itself (no network): it shows its sequence.
    expect(lines[0]).toMatch(/^corp\tfile:\/\/\S+\tsequence \d+\t\[managed by your organisation; cannot be removed\]$/);
    expect(lines[1]).toMatch(/^other\tfile:\/\/\S+\tsequence \d+\t\[not used: the policy allows only its own registries\]$/);
    const json = JSON.parse(ok(await run(['remote', 'list', '--json'], true))) as Array<Record<string, unknown>>;
    expect(json).toEqual([
      expect.objectContaining({ name: 'corp', used: true, managed: { text: `Managed by Acme IT (rule "remotes" in ${policyPath}).` } }),
      expect.objectContaining({ name: 'other', used: false, managed: null }),
    ]);

    // `remote update` fetches the policy's registry (the one in force; list read it already), then show has its catalogue.
    expect(ok(await run(['remote', 'update'], true))).toMatch(/^corp: sequence \d+ \(unchanged\), 1 capabilities\n$/);
    const show = ok(await run(['remote', 'show', 'corp'], true));
    expect(show.split('\n')[0]).toBe('corp\t[managed by your organisation; cannot be removed]');
    expect(show).toContain(`  root key: ${corp.registry.rootKey.publicKey}`);
    expect(show).toMatch(/ {2}catalogue: ".+" sequence \d+, 1 capabilities/);
    expect(show).toContain(`  Managed by Acme IT (rule "remotes" in ${policyPath}). It cannot be removed.`);
    expect(ok(await run(['remote', 'show', 'other'], true))).toContain(
      '  not used: your organisation allows only the registries its policy lists.',
    );
    expect(JSON.parse(ok(await run(['remote', 'show', 'corp', '--json'], true)))).toMatchObject({
      name: 'corp',
      capabilities: 1,
      managed: { text: expect.stringContaining('rule "remotes"') },
    });

    // search reads the policy's registry, not the configured one it leaves out.
    const found = JSON.parse(ok(await run(['search', '', '--json'], true))) as Array<{ id: string }>;
    expect(found.map((h) => h.id)).toEqual(['acme/allowed']);
    // And the managed one cannot be removed (the rule named).
    const remove = await run(['remote', 'remove', 'corp'], true);
    expect(remove.code).toBe(1);
    expect(remove.stderr).toMatch(/E_POLICY.*corp was added by your organisation and cannot be removed.*rule "remotes"/s);
  });
});

// Secrets for env:read permissions: values reach only the tool whose granted
// permission names them, per capability; never the audit log; the CLI's store is a 0600 file
// and the CLI says when it uses it. Real packages, real bubblewrap runs.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { runWorkflow } from '../../../sdk/src/run/workflow.js';
import { envReadVariables, FileSecretStore, type SecretRequest } from '../../../sdk/src/run/secrets.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { ADCAP_FIXTURE, spawnTs } from '../../helpers/spawn-ts.js';
import { adcap } from '../cli/run-cli.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

/** Reports which of the interesting variables it can see. */
const ENV_TOOL = `import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) {
  const seen = {};
  for (const name of ['API_KEY', 'OTHER_KEY', 'LEAKED']) seen[name] = process.env[name] ?? null;
  process.stdout.write(JSON.stringify({ type: 'result', output: { seen } }) + '\\n');
  break;
}
`;

let h: RunHome;
let arc: Arcotheon;
const savedLeaked = process.env.LEAKED;

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  const permissions = [
    { id: 'env:read' as const, scope: 'API_KEY', reason: 'calls the API' },
    { id: 'env:read' as const, scope: 'OTHER_KEY', reason: 'another service' },
  ];
  const files = { 'tools/env.mjs': { text: ENV_TOOL } };
  await h.install(
    {
      id: 'acme/keys',
      permissions,
      tools: [nodeTool('reads_key', 'env.mjs', { permissions: ['env:read:API_KEY'] }), nodeTool('no_key', 'env.mjs')],
      workflows: [
        {
          'adcap-workflow': '1.0',
          id: 'both',
          steps: [
            { id: 'a', tool: 'reads_key', input: {} },
            { id: 'b', tool: 'no_key', input: {} },
          ],
        },
      ],
      files,
    },
    arc,
  );
  await h.install(
    {
      id: 'acme/other',
      permissions: [permissions[0]!],
      tools: [nodeTool('reads_key', 'env.mjs', { permissions: ['env:read:API_KEY'] })],
      files,
    },
    arc,
  );
  // In the host's own environment: it must never reach a tool through the secrets path.
  process.env.LEAKED = 'from-the-host';
});
afterAll(async () => {
  if (savedLeaked === undefined) delete process.env.LEAKED;
  else process.env.LEAKED = savedLeaked;
  await h.remove();
});

function source(values: Record<string, string>) {
  const asked: string[] = [];
  const fn = async (r: SecretRequest): Promise<string | null> => {
    asked.push(`${r.capability} ${r.tool} ${r.variable}`);
    return values[`${r.capability} ${r.variable}`] ?? null;
  };
  return { fn, asked };
}

describe('SecretSource in runTool and runWorkflow', () => {
  it('asks only for the variables the tool declares, per capability, and passes only those', async () => {
    const s = source({ 'acme/keys API_KEY': 'key-of-keys', 'acme/keys OTHER_KEY': 'other-of-keys', 'acme/other API_KEY': 'key-of-other' });
    const keys = await runTool(arc, 'acme/keys', 'reads_key', {}, { secrets: s.fn });
    expect(keys.output['seen']).toEqual({ API_KEY: 'key-of-keys', OTHER_KEY: null, LEAKED: null });
    const none = await runTool(arc, 'acme/keys', 'no_key', {}, { secrets: s.fn });
    expect(none.output['seen']).toEqual({ API_KEY: null, OTHER_KEY: null, LEAKED: null });
    const other = await runTool(arc, 'acme/other', 'reads_key', {}, { secrets: s.fn });
    expect(other.output['seen']).toEqual({ API_KEY: 'key-of-other', OTHER_KEY: null, LEAKED: null });
    // OTHER_KEY is granted to acme/keys, but no tool that ran declares it: never asked.
    expect(s.asked).toEqual(['acme/keys reads_key API_KEY', 'acme/other reads_key API_KEY']);
  });

  it('a declined secret leaves the variable unset; a workflow asks per step', async () => {
    const s = source({});
    const run = await runTool(arc, 'acme/keys', 'reads_key', {}, { secrets: s.fn });
    expect(run.output['seen']).toEqual({ API_KEY: null, OTHER_KEY: null, LEAKED: null });
    const flow = source({ 'acme/keys API_KEY': 'wf-key' });
    const result = await runWorkflow(arc, 'acme/keys', 'both', {}, { secrets: flow.fn });
    expect(result.status).toBe('done');
    expect(result.steps.map((step) => (step.output as { seen: unknown }).seen)).toEqual([
      { API_KEY: 'wf-key', OTHER_KEY: null, LEAKED: null },
      { API_KEY: null, OTHER_KEY: null, LEAKED: null },
    ]);
    expect(flow.asked).toEqual(['acme/keys reads_key API_KEY']);
  });

  it('never writes a value into the audit log', async () => {
    const dir = storeOf(arc).home.auditDir;
    const text = (await Promise.all((await readdir(dir)).map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
    expect(text).toContain('reads_key');
    for (const value of ['key-of-keys', 'key-of-other', 'wf-key', 'from-the-host']) expect(text).not.toContain(value);
  });

  it('envReadVariables keeps well-formed env:read names only', () => {
    expect(envReadVariables(['env:read:B', 'env:read:A', 'env:read', 'env:read:1BAD', 'fs:read:workspace', 'env:read:A'])).toEqual([
      'A',
      'B',
    ]);
  });
});

describe('FileSecretStore (the CLI store)', () => {
  it('keeps values in a 0600 file, by capability and variable', async () => {
    const store = new FileSecretStore(join(h.root, 'store', 'secrets.json'));
    expect(await store.get('acme/keys', 'API_KEY')).toBeUndefined();
    await store.set('acme/keys', 'API_KEY', 'v1');
    await store.set('acme/other', 'API_KEY', 'v2');
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect(await store.get('acme/keys', 'API_KEY')).toBe('v1');
    expect(await store.get('acme/other', 'API_KEY')).toBe('v2');
    expect(await store.list()).toEqual([
      { capability: 'acme/keys', variable: 'API_KEY' },
      { capability: 'acme/other', variable: 'API_KEY' },
    ]);
    expect(await store.delete('acme/keys', 'API_KEY')).toBe(true);
    expect(await store.delete('acme/keys', 'API_KEY')).toBe(false);
    expect(await store.get('acme/keys', 'API_KEY')).toBeUndefined();
    expect((await rejectionOf(store.set('Acme/keys', 'API_KEY', 'x'))).code).toBe('E_USAGE');
    expect((await rejectionOf(store.set('acme/keys', 'BAD-NAME', 'x'))).code).toBe('E_USAGE');
    expect((await rejectionOf(store.set('acme/keys', 'API_KEY', 'two\nlines'))).code).toBe('E_USAGE');
    await writeFile(store.file, '{ not json');
    expect((await rejectionOf(store.get('acme/keys', 'API_KEY'))).code).toBe('E_JSON');
  });
});

describe('adcap secret and adcap run', () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    adcap([...args, '--home', h.home], { cwd: h.root, env: { PATH: process.env.PATH, ...env } });

  it('secret set reads the value from stdin into <home>/secrets.json (0600) and run uses it, saying so', async () => {
    const child = await spawnTs(ADCAP_FIXTURE, ['secret', 'set', 'acme/keys', 'API_KEY', '--home', h.home]);
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stdin.end('cli-key\n');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const file = join(h.home, 'secrets.json');
    expect(stdout).toContain(`stored API_KEY for acme/keys in ${file} (plain text, readable only by you: mode 0600)`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const run = await cli(['run', 'acme/keys', 'reads_key', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ seen: { API_KEY: 'cli-key', OTHER_KEY: null, LEAKED: null } });
    // --json keeps stderr notes off; without it the CLI names the file the value came from.
    const human = await cli(['run', 'acme/keys', 'reads_key']);
    expect(human.stderr).toContain(`API_KEY for acme/keys reads_key comes from ${file} (plain text, mode 0600)`);
    expect(human.stderr).not.toContain('cli-key');
    // The CLI's own environment still wins, as before this store existed.
    const fromEnv = await cli(['run', 'acme/keys', 'reads_key', '--json'], { API_KEY: 'env-key' });
    expect(JSON.parse(fromEnv.stdout)).toEqual({ seen: { API_KEY: 'env-key', OTHER_KEY: null, LEAKED: null } });

    const listed = await cli(['secret', 'list']);
    expect(listed.stdout.trim()).toBe('acme/keys API_KEY');
    expect(listed.stdout).not.toContain('cli-key');
    expect((await cli(['secret', 'rm', 'acme/keys', 'API_KEY'])).stdout).toContain('removed API_KEY for acme/keys');
    const after = await cli(['run', 'acme/keys', 'reads_key', '--json']);
    expect(JSON.parse(after.stdout)).toEqual({ seen: { API_KEY: null, OTHER_KEY: null, LEAKED: null } });
  });
});

// A new capability made by `adcap init` ships a tool, and spec §11 makes a host that compat.agents
// does not list refuse it. init lists the Arcotheon app and AgentDock unless told otherwise, says
// so, and --host names others; an AgentDock host installs the built scaffold.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { adcap } from './run-cli.js';

let work: string;
// No built-in registry: these packages are local files, and none of the examples is needed.
const run = (argv: string[]) => adcap(argv, { cwd: work, env: { ARCOTHEON_EMBEDDED_REGISTRY: '', PATH: process.env.PATH } });
const agentsOf = async (dir: string) =>
  (JSON.parse(await readFile(join(work, dir, 'capability.json'), 'utf8')) as { compat: { agents: Record<string, string> } }).compat.agents;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-init-hosts-'));
});

describe('adcap init and compat.agents', () => {
  it('lists arcotheon and agentdock by default and says that other hosts refuse the tools', async () => {
    const r = await run(['init', 'greeter', '--id', 'me/greeter']);
    expect(r.code, r.stderr).toBe(0);
    expect(await agentsOf('greeter')).toEqual({ arcotheon: '*', agentdock: '*' });
    expect(r.stdout).toContain('its tools run in these hosts (compat.agents): arcotheon *, agentdock *; others refuse them');
  });

  it('--host names the hosts instead, with an optional range; a malformed one is a usage error', async () => {
    const r = await run(['init', 'only-dock', '--id', 'me/only-dock', '--host', 'agentdock@>=2.0.0', '--host', 'my-host']);
    expect(r.code, r.stderr).toBe(0);
    expect(await agentsOf('only-dock')).toEqual({ agentdock: '>=2.0.0', 'my-host': '*' });
    const bad = await run(['init', 'bad', '--id', 'me/bad', '--host', 'Agent Dock']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error E_USAGE: --host Agent Dock is not a host id/);
  });

  it('an AgentDock host installs the scaffold built as it is', async () => {
    expect((await run(['build', 'greeter', '-o', 'greeter.adcap'])).code).toBe(0);
    const arc = new Arcotheon({ home: join(work, 'agentdock-home'), host: { agent: { id: 'agentdock', version: '2.3.0' } }, remotes: [] });
    const result = await arc.install({ file: join(work, 'greeter.adcap') }, { approve: () => true, allowUnsigned: true });
    expect(result.installed.map((i) => i.id)).toEqual(['me/greeter']);
  });
});

#!/usr/bin/env node
// A complete agent host in one file: what the host contract (docs/spec/host-integration-contract.txt)
// asks a host to do, with @arcotheon/sdk. It runs offline against the example registry bundled
// with this repository (the SDK's embedded default remote):
//
//   npm install            # builds the SDK and the example registry
//   node sdk/examples/host.mjs [home]
//
// 1. one Arcotheon instance  2. discover  3. plan + approve + install  4. skills for the agent
// 5. run a tool  6. run a workflow up to its agent step  7. keep current: update, doctor
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon, ARCOTHEON_ROOT_KEYS, AuditLog, isAdcapError, runTool, runWorkflow } from '@arcotheon/sdk';

const home = process.argv[2] ?? (await mkdtemp(join(tmpdir(), 'arcotheon-host-example-')));

// 1. Embedding: one instance, its home inside the app's data directory, this host's agent id
//    (capabilities whose compat.agents excludes it are refused), and the root keys of the registry
//    the SDK ships, which is the default remote of an instance that names no remotes.
if (ARCOTHEON_ROOT_KEYS.length === 0) throw new Error('This copy of the SDK carries no registry; run "npm run examples" first.');
const arc = new Arcotheon({
  home,
  rootKeys: ARCOTHEON_ROOT_KEYS,
  host: { agent: { id: 'arcotheon', version: '1.0.0' } },
  // Free users must not install Pro capabilities: the SDK asks the host before every tool run.
  checkTier: ({ tier }) => tier === 'free',
});
console.log(`home: ${home}`);

// 2. Discover: metadata only, from the signed catalogue.
const hits = await arc.search('csv');
console.log(`search "csv": ${hits.map((h) => `${h.id}@${h.latest}`).join(', ')}`);

// 3. Install: show the plan (items, versions, new permissions in plain language), and install only
//    what the user approved. `approve` gets exactly the plan that will be carried out.
const result = await arc.install(['arcotheon/workspace-stats', 'acme/data-report'], {
  approve: async (plan) => {
    console.log(plan.report.lines.map((line) => `  | ${line}`).join('\n'));
    return true; // a real host shows a dialog here and returns the user's answer
  },
  onProgress: (p) => p.phase === 'switch' && console.log('  switching in the new versions…'),
});
console.log(`installed: ${result.installed.map((i) => `${i.id}@${i.version}`).join(', ')}`);

// 4. Skills: every installed skill is a standard Agent Skills directory for the host's agents.
for (const { id } of await arc.list()) {
  const manifest = await arc.installedManifest(id);
  for (const skill of manifest.skills ?? []) console.log(`skill for the agent: ${join(await arc.installedDir(id), skill.path)}`);
}

// 5. Tools: only granted tools run, sandboxed, with their input and output checked.
const workspace = await mkdtemp(join(tmpdir(), 'arcotheon-workspace-'));
await writeFile(join(workspace, 'notes.md'), '# Plan\nTODO: write the report\nFIXME: the totals are off\n');
await writeFile(join(workspace, 'sales.csv'), 'region,month,units,revenue\nnorth,jan,12,1200\nsouth,jan,,800\nnorth,feb,15,1500\n');
const todos = await runTool(arc, 'arcotheon/workspace-stats', 'find_todos', { path: '.' }, { workspace });
console.log(`find_todos (${todos.sandbox}, ${todos.durationMs} ms):`, JSON.stringify(todos.output));

// 6. Workflows: tool steps run here; the agent step comes back as an instruction for the agent.
const flow = await runWorkflow(arc, 'acme/data-report', 'csv-report', { path: 'sales.csv' }, { workspace });
if (flow.status === 'agent') console.log(`workflow stopped for the agent at "${flow.stepId}":\n  ${flow.instruction.slice(0, 160)}…`);

// 7. Keep current, and surface broken or revoked installs at start-up.
const update = await arc.update(undefined, { approve: async (plan) => plan.newPermissions.length === 0 });
console.log(`update: ${update.applied ? 'applied' : 'nothing to apply'}`);
const doctor = await arc.doctor();
console.log(`doctor: ${doctor.ok ? 'ok' : doctor.problems.map((p) => p.message).join('; ')}`);

// Every tool and workflow run is in a tamper-evident audit log.
console.log(`audit log: ${(await new AuditLog(join(home, 'audit')).verify()).lines} lines, chain intact`);

// Errors carry a stable code and a sentence a person can act on.
try {
  await runTool(arc, 'arcotheon/workspace-stats', 'find_todos', { path: 42 }, { workspace });
} catch (error) {
  if (!isAdcapError(error)) throw error;
  console.log(`refused as expected: ${error.code}: ${error.message}`);
}

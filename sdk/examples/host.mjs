#!/usr/bin/env node
// A complete agent host in one file: what the host contract (docs/spec/host-integration-contract.txt)
// asks a host to do, with @arcotheon/sdk. It runs offline against the example registry bundled
// with this repository (the SDK's embedded default remote):
//
//   npm install            # builds the SDK and the example registry
//   node sdk/examples/host.mjs [home]
//
// 1. one Arcotheon instance  2. discover  3. plan + approve + install  4. skills for the agent
// 5. run a tool  6. run a workflow up to its agent step, and resume it with the agent's answer
// 7. keep current: update, doctor  8. change events, also from another process (adcap), and typed
// error details  9. the host's own Sandbox hook  10. a damaged install listed and repaired
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Arcotheon, ARCOTHEON_ROOT_KEYS, AuditLog, isAdcapError, resumeWorkflow, runTool, runWorkflow, watchChanges } from '@arcotheon/sdk';

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
if (flow.status !== 'agent') throw new Error('csv-report ends in an agent step');
console.log(`workflow stopped for the agent at "${flow.stepId}":\n  ${flow.instruction.slice(0, 160)}…`);
// The host gives the instruction to its agent, then hands the answer back with the token; the
// steps after the agent step run (the answer must match the step's outputSchema when it has one).
const answer = 'Three rows over two months; south/jan has no units: fill it in before totals are used.';
const finished = await resumeWorkflow(arc, flow.resumeToken, answer, { workspace });
if (finished.status === 'done') {
  console.log(
    `workflow resumed and done: output ${Object.keys(finished.output).join(', ')}; ` +
      `steps ${finished.steps.map((s) => `${s.kind}:${s.id}`).join(' ')}`,
  );
}

// 7. Keep current, and surface broken or revoked installs at start-up.
const update = await arc.update(undefined, { approve: async (plan) => plan.newPermissions.length === 0 });
console.log(`update: ${update.applied ? 'applied' : 'nothing to apply'}`);
const doctor = await arc.doctor();
console.log(`doctor: ${doctor.ok ? 'ok' : doctor.problems.map((p) => p.message).join('; ')}`);

// 8. Change events: the host redraws when anything changes in the home, also when another process
//    (here the package's own adcap, as a user in a terminal would run it) changes it.
const events = [];
const watcher = watchChanges(arc, (event) => {
  events.push(event);
  if (event.type === 'grants-changed')
    console.log(
      `event: grants-changed ${event.id} (removed: ${event.removed.join(', ') || 'none'}, added: ${event.added.join(', ') || 'none'})`,
    );
  else console.log(`event: ${event.type} ${event.id}`);
});
await watcher.ready;
const require = createRequire(import.meta.url);
const sdkPackage = require.resolve('@arcotheon/sdk/package.json');
const adcapBin = join(dirname(sdkPackage), JSON.parse(await readFile(sdkPackage, 'utf8')).bin.adcap);
await promisify(execFile)(process.execPath, [
  adcapBin,
  'grants',
  'arcotheon/workspace-stats',
  '--revoke',
  'fs:read:workspace',
  '--home',
  home,
]);
const heard = async (type) => {
  for (let i = 0; i < 100 && !events.some((e) => e.type === type); i++) await new Promise((r) => setTimeout(r, 50));
  if (!events.some((e) => e.type === type)) throw new Error(`no ${type} event`);
};
await heard('grants-changed');
// Errors carry typed details per code: E_NOT_GRANTED names the missing grants.
try {
  await runTool(arc, 'arcotheon/workspace-stats', 'find_todos', { path: '.' }, { workspace });
} catch (error) {
  if (!isAdcapError(error, 'E_NOT_GRANTED')) throw error;
  console.log(`not granted, as expected: missing ${error.details.missing?.join(', ')}`);
}
events.length = 0;
await arc.grant('arcotheon/workspace-stats', 'fs:read:workspace');
await heard('grants-changed');
watcher.close();

// 9. The Sandbox hook: a host that has its own jail passes it as sandbox.use; wrap() gets the run's
//    spec (spec.tmpDir exists, so it can be the tool's HOME) and returns the complete command.
//    This one only runs the command as it is, with HOME in the run's folder, as sdk/README.md shows.
let tmpDirExisted = false;
const jailed = new Arcotheon({
  home,
  rootKeys: ARCOTHEON_ROOT_KEYS,
  host: { agent: { id: 'arcotheon', version: '1.0.0' } },
  sandbox: {
    use: {
      name: 'host-jail',
      wrap(spec) {
        tmpDirExisted = existsSync(spec.tmpDir);
        return { command: spec.command, args: spec.args, env: { PATH: '/usr/bin:/bin', HOME: spec.tmpDir }, cwd: spec.cwd };
      },
    },
  },
});
const jailedRun = await runTool(jailed, 'arcotheon/workspace-stats', 'find_todos', { path: '.' }, { workspace });
console.log(
  `sandbox hook: ran in ${jailedRun.sandbox}, spec.tmpDir existed at wrap(): ${tmpDirExisted}, ` +
    `${jailedRun.output.items?.length ?? 0} notes found`,
);

// 10. A damaged install (a state file a crash or an editor broke) is still listed, with what a
//     repair does; doctor({ fix: true }) does it.
await writeFile(join(home, 'packages', 'acme', 'csv-summary', 'state.json'), '{"id": "acme/csv-summary", ');
for (const c of await arc.list()) if (c.damaged !== undefined) console.log(`listed damaged: ${c.id}@${c.version}: ${c.damaged.repair}`);
const repaired = await arc.doctor({ fix: true });
console.log(`repaired: ${repaired.problems.map((p) => `${p.kind} ${p.id ?? ''}: ${p.fixed ?? 'not fixed'}`).join('; ')}`);
console.log(`listed after repair: ${(await arc.list()).map((c) => `${c.id} ${c.status}`).join(', ')}`);

// Every tool and workflow run is in a tamper-evident audit log.
console.log(`audit log: ${(await new AuditLog(join(home, 'audit')).verify()).lines} lines, chain intact`);

// Errors carry a stable code and a sentence a person can act on.
try {
  await runTool(arc, 'arcotheon/workspace-stats', 'find_todos', { path: 42 }, { workspace });
} catch (error) {
  if (!isAdcapError(error)) throw error;
  console.log(`refused as expected: ${error.code}: ${error.message}`);
}

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arcotheon } from '@arcotheon/sdk';
import { loadEmbeddedRemote } from '@arcotheon/sdk/internal';
import { describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../electron/common/events.js';
import { createHostService } from '../../../electron/host/service.js';

/**
 * Run by hand, on the bundled example registry as `npm start` serves it: the
 * capability page shows the workflow with its input schema, and running it streams the step in
 * progress events and stops at the agent step with the instruction and the data gathered so far;
 * run.resumeWorkflow hands the agent's answer back and the workflow ends with its output.
 */
describe('running a workflow through the host', () => {
  it('reaches the agent step of acme/data-report csv-report with live progress per step', async () => {
    const embedded = await loadEmbeddedRemote({});
    if (embedded === null) throw new Error('The example registry is not built; run "npm run examples".');
    const home = await mkdtemp(join(tmpdir(), 'adcap-host-workflow-'));
    const host = createHostService(new Arcotheon({ home, host: { agent: { id: 'arcotheon', version: '0.1.0' } }, remotes: [embedded] }));
    const events: HostEvent[] = [];
    host.subscribe((e) => events.push(e));
    const client = host.api;

    const detail = await client.catalogue.detail('acme/data-report');
    if (!detail.ok) throw new Error(detail.error.message);
    const workflow = detail.value.package?.workflows.find((w) => w.id === 'csv-report');
    expect(workflow).toMatchObject({
      name: 'CSV report',
      inputSchema: { required: ['path'] },
      steps: [
        { id: 'summary', kind: 'tool' },
        { id: 'quality', kind: 'tool' },
        { id: 'report', kind: 'agent' },
      ],
    });

    const plan = await client.installs.plan('acme/data-report');
    if (!plan.ok) throw new Error(plan.error.message);
    expect((await client.perform('installs.install', 'acme/data-report', { approvedDigest: plan.value.digest })).ok).toBe(true);

    const folder = await mkdtemp(join(tmpdir(), 'adcap-host-workflow-ws-'));
    await writeFile(join(folder, 'sales.csv'), 'region,month,units\nnorth,jan,12\nsouth,jan,\n');
    const workspace = await client.workspaces.confirm(folder);
    if (!workspace.ok) throw new Error(workspace.error.message);
    const started = await client.run.workflow(
      'acme/data-report',
      'csv-report',
      { path: 'sales.csv' },
      { workspace: workspace.value.handle },
    );
    if (!started.ok) throw new Error(started.error.message);
    const result = await client.operations.wait(started);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value).toMatchObject({
      status: 'agent',
      stepId: 'report',
      instruction: expect.stringContaining('sales.csv'),
      steps: [{ id: 'summary', output: { rows: 2 } }, { id: 'quality' }],
    });
    const steps = new Set(
      events.flatMap((e) => (e.type === 'progress' && e.operation === started.value.operation && e.step !== undefined ? [e.step] : [])),
    );
    expect([...steps]).toEqual(['summary', 'quality']);

    // The Run screen's Continue: the agent's answer goes back with the token, and the workflow ends.
    if (result.value.status !== 'agent') throw new Error('expected the agent step');
    const report = 'Two rows; south/jan has no units: fill it in.';
    const resumed = await client.operations.wait(
      await client.run.resumeWorkflow(result.value.resumeToken, report, { workspace: workspace.value.handle }),
    );
    expect(resumed).toMatchObject({
      ok: true,
      value: {
        status: 'done',
        output: { summary: { rows: 2 }, quality: { rows: 2 } },
        steps: [{ id: 'summary' }, { id: 'quality' }, { kind: 'agent', id: 'report', output: report }],
      },
    });
    // Used once: a second Continue is E_NOT_FOUND, not a second run.
    const again = await client.operations.wait(await client.run.resumeWorkflow(result.value.resumeToken, report));
    expect(again).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
    await host.close();
  });
});

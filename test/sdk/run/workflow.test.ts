// runWorkflow (spec §8) end to end under real bubblewrap: tool -> tool (of a dependency) -> agent
// stop; inputs with defaults; the output mapping; audit lines for the workflow and its steps.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../sdk/src/format/manifest-types.js';
import { runWorkflow, validateInstalledWorkflows } from '../../../sdk/src/run/workflow.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;
let arc: Arcotheon;

const pipeline = {
  'adcap-workflow': '1.0',
  id: 'analyze-and-recommend',
  inputs: { properties: { limit: { type: 'integer', default: 4 }, q: { type: 'string' } }, required: ['q'] },
  steps: [
    { id: 'first', tool: 'echo', input: { n: '{{inputs.limit}}', text: 'query: {{inputs.q}}', gone: '{{inputs.nope}}' } },
    { id: 'second', tool: 'libecho', capability: 'acme/lib', input: '{{steps.first.output.echoed}}' },
    { id: 'advise', agent: 'Explain {{steps.second.output.echoed.text}} using {{steps.first.output.echoed}}.' },
    { id: 'never', tool: 'echo', input: {} },
  ],
  output: { unused: '{{steps.never.output}}' },
};
const mapping = {
  'adcap-workflow': '1.0',
  id: 'measure',
  inputs: { properties: { limit: { default: 7 } } },
  steps: [{ id: 'm', tool: 'echo', input: { n: '{{inputs.limit}}' } }],
  output: {
    count: '{{steps.m.output.echoed.n}}',
    all: '{{steps.m.output.echoed}}',
    label: 'n={{steps.m.output.echoed.n}}',
    gone: '{{steps.m.output.nothing}}',
  },
};

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  await h.install({ id: 'acme/lib', tools: [nodeTool('libecho', 'echo.mjs')], files: { 'tools/echo.mjs': 'echo.mjs' } }, arc);
  await h.install(
    {
      id: 'acme/flow',
      dependencies: { 'acme/lib': '^1.0.0' },
      tools: [nodeTool('echo', 'echo.mjs', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } })],
      workflows: [pipeline, mapping],
      files: { 'tools/echo.mjs': 'echo.mjs' },
    },
    arc,
  );
});
afterAll(async () => {
  await h.remove();
});

async function auditLines(): Promise<Array<Record<string, unknown>>> {
  const dir = storeOf(arc).home.auditDir;
  const out: Array<Record<string, unknown>> = [];
  for (const f of (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort()) {
    for (const line of (await readFile(join(dir, f), 'utf8')).trim().split('\n')) out.push(JSON.parse(line) as Record<string, unknown>);
  }
  return out;
}

describe('runWorkflow', () => {
  it('tool -> dependency tool -> agent stop: returns the interpolated instruction and the steps so far', async () => {
    const before = (await auditLines().catch(() => [])).length;
    const result = await runWorkflow(arc, 'acme/flow', 'analyze-and-recommend', { q: 'cats' });
    expect(result.status).toBe('agent');
    if (result.status !== 'agent') return;
    expect(result.stepId).toBe('advise');
    expect(result.inputs).toEqual({ q: 'cats', limit: 4 });
    // Whole-string template kept the number; the undefined key was dropped.
    expect(result.steps[0]).toMatchObject({
      id: 'first',
      capability: 'acme/flow',
      tool: 'echo',
      output: { echoed: { n: 4, text: 'query: cats' } },
    });
    // The dependency's tool got the previous output object itself (whole-string template keeps the type).
    expect(result.steps[1]).toMatchObject({
      id: 'second',
      capability: 'acme/lib',
      tool: 'libecho',
      output: { echoed: { n: 4, text: 'query: cats' } },
    });
    expect(result.steps).toHaveLength(2);
    expect(result.instruction).toBe('Explain query: cats using {"n":4,"text":"query: cats"}.');
    const lines = (await auditLines()).slice(before);
    expect(lines.map((l) => [l['kind'], l['capability'], l['name'], l['outcome']])).toEqual([
      ['tool', 'acme/flow', 'echo', 'ok'],
      ['tool', 'acme/lib', 'libecho', 'ok'],
      ['workflow', 'acme/flow', 'analyze-and-recommend', 'ok'],
    ]);
  });

  it('without an agent step the output mapping is returned: types kept, undefined dropped, partial templates stringified', async () => {
    const result = await runWorkflow(arc, 'acme/flow', 'measure', {});
    expect(result).toMatchObject({ status: 'done', output: { count: 7, all: { n: 7 }, label: 'n=7' } });
    if (result.status === 'done') expect(Object.keys(result.output).sort()).toEqual(['all', 'count', 'label']);
  });

  it('inputs that fail the inputs schema are E_INPUT; a failing step names itself', async () => {
    const missing = await rejectionOf(runWorkflow(arc, 'acme/flow', 'analyze-and-recommend', {}));
    expect(missing.code).toBe('E_INPUT');
    const badStep = await rejectionOf(runWorkflow(arc, 'acme/flow', 'analyze-and-recommend', { q: 'x', limit: 'four' }));
    expect(badStep.code).toBe('E_INPUT');
    const wrongType = await rejectionOf(runWorkflow(arc, 'acme/flow', 'measure', { limit: 'seven' }));
    expect(wrongType.code).toBe('E_INPUT');
    expect(wrongType.details?.['step']).toBe('m');
    expect((await auditLines()).at(-1)).toMatchObject({ kind: 'workflow', name: 'measure', outcome: 'error', errorCode: 'E_INPUT' });
  });

  it('an unknown workflow is E_NOT_FOUND listing the workflows', async () => {
    const error = await rejectionOf(runWorkflow(arc, 'acme/flow', 'nope', {}));
    expect(error.code).toBe('E_NOT_FOUND');
    expect(error.message).toContain('measure');
  });
});

describe('validateInstalledWorkflows (for the install path)', () => {
  const manifest = {
    id: 'acme/x',
    tools: [{ name: 'echo' }],
    workflows: [{ path: 'workflows/a.json' }, { path: 'workflows/b.json' }],
  } as unknown as Manifest;

  it('refuses a workflow whose tool step names a tool the capability does not have', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-wf-'));
    await mkdir(join(dir, 'workflows'));
    await writeFile(
      join(dir, 'workflows/a.json'),
      JSON.stringify({ 'adcap-workflow': '1.0', id: 'a', steps: [{ id: 's', tool: 'missing' }] }),
    );
    await writeFile(join(dir, 'workflows/b.json'), JSON.stringify({ 'adcap-workflow': '1.0', id: 'b', steps: [{ id: 's', agent: 'x' }] }));
    const error = await rejectionOf(validateInstalledWorkflows(manifest, dir));
    expect(error.code).toBe('E_SEMANTIC');
    expect(error.message).toContain('workflow-tool-exists');
  });

  it('refuses two workflows with the same id, and floats (integers only)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-wf-'));
    await mkdir(join(dir, 'workflows'));
    await writeFile(
      join(dir, 'workflows/a.json'),
      JSON.stringify({ 'adcap-workflow': '1.0', id: 'same', steps: [{ id: 's', agent: 'x' }] }),
    );
    await writeFile(
      join(dir, 'workflows/b.json'),
      JSON.stringify({ 'adcap-workflow': '1.0', id: 'same', steps: [{ id: 's', agent: 'y' }] }),
    );
    expect((await rejectionOf(validateInstalledWorkflows(manifest, dir))).message).toContain('workflow-id-unique');
    await writeFile(
      join(dir, 'workflows/b.json'),
      '{"adcap-workflow":"1.0","id":"b","steps":[{"id":"s","tool":"echo","input":{"x":1.5}}]}',
    );
    expect((await rejectionOf(validateInstalledWorkflows(manifest, dir))).code).toBe('E_JSON');
  });
});

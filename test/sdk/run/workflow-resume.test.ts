// resumeWorkflow (spec §8 agent steps; host contract "Workflows"): runWorkflow stops at an agent step
// with a resume token kept in the home; the agent's answer is checked against the step's
// outputSchema, the steps after it run and read it; a token is used once, survives a refused answer
// or a failing later step, and can never name a file of its own. Real tools under the platform sandbox.
import { mkdir, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../sdk/src/format/manifest-types.js';
import { resumeWorkflow, runWorkflow, validateInstalledWorkflows, type WorkflowRunResult } from '../../../sdk/src/run/workflow.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { nodeTool, rejectionOf, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

let h: RunHome;
let arc: Arcotheon;

const SCORE_SCHEMA = {
  type: 'object',
  required: ['score'],
  properties: { score: { type: 'integer', minimum: 0, maximum: 10 }, why: { type: 'string' } },
  additionalProperties: false,
};

const review = {
  'adcap-workflow': '1.0',
  id: 'review',
  inputs: { properties: { q: { type: 'string', default: 'cats' } } },
  steps: [
    { id: 'first', tool: 'echo', input: { text: '{{inputs.q}}' } },
    { id: 'judge', agent: 'Rate {{steps.first.output.echoed.text}} from 0 to 10.', outputSchema: SCORE_SCHEMA },
    { id: 'record', tool: 'echo', input: { n: '{{steps.judge.output.score}}', text: 'score {{steps.judge.output.score}}' } },
    { id: 'summarise', agent: 'Summarise: {{steps.record.output.echoed.text}}' },
    { id: 'final', tool: 'echo', input: { text: '{{steps.summarise.output}}' } },
  ],
  output: { score: '{{steps.judge.output.score}}', summary: '{{steps.final.output.echoed.text}}', first: '{{steps.first.output.echoed}}' },
};
/** The answer goes to a tool whose input must be an integer: a text answer fails the step after it. */
const count = {
  'adcap-workflow': '1.0',
  id: 'count',
  steps: [
    { id: 'ask', agent: 'How many?' },
    { id: 'use', tool: 'echo', input: { n: '{{steps.ask.output}}' } },
  ],
  output: { n: '{{steps.use.output.echoed.n}}' },
};

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  await h.install(
    {
      id: 'acme/resume',
      tools: [nodeTool('echo', 'echo.mjs', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } })],
      workflows: [review, count],
      files: { 'tools/echo.mjs': 'echo.mjs' },
    },
    arc,
  );
});
afterAll(async () => {
  await h.remove();
});

function paused(result: WorkflowRunResult): Extract<WorkflowRunResult, { status: 'agent' }> {
  if (result.status !== 'agent') throw new Error(`expected an agent step, got ${JSON.stringify(result)}`);
  return result;
}

const runsDir = (): string => join(storeOf(arc).home.root, 'runs');
const pausedFiles = async (): Promise<string[]> =>
  (await readdir(runsDir()).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));

describe('resumeWorkflow', () => {
  it('runs the steps after each agent step with its answer, to the output mapping; each token is used once', async () => {
    const first = paused(await runWorkflow(arc, 'acme/resume', 'review', {}));
    expect(first).toMatchObject({ stepId: 'judge', instruction: 'Rate cats from 0 to 10.', outputSchema: SCORE_SCHEMA });
    expect(first.resumeToken).toMatch(/^wfr_[0-9a-f]{32}$/);
    // Kept atomically in the home, readable by this user only (the inputs may be the user's data).
    expect(await pausedFiles()).toEqual([`${first.resumeToken}.json`]);
    expect((await stat(join(runsDir(), `${first.resumeToken}.json`))).mode & 0o777).toBe(0o600);

    const second = paused(await resumeWorkflow(arc, first.resumeToken, { score: 7, why: 'fluffy' }));
    expect(second).toMatchObject({ stepId: 'summarise', instruction: 'Summarise: score 7' });
    expect(second.resumeToken).not.toBe(first.resumeToken);
    expect(second.steps.map((s) => [s.kind, s.id])).toEqual([
      ['tool', 'first'],
      ['agent', 'judge'],
      ['tool', 'record'],
    ]);
    expect(second.steps[2]).toMatchObject({ output: { echoed: { n: 7, text: 'score 7' } } });
    expect(await pausedFiles()).toEqual([`${second.resumeToken}.json`]);

    const done = await resumeWorkflow(arc, second.resumeToken, 'Seven out of ten.');
    expect(done).toMatchObject({
      status: 'done',
      workflow: 'review',
      output: { score: 7, summary: 'Seven out of ten.', first: { text: 'cats' } },
    });
    expect(done.steps.map((s) => s.id)).toEqual(['first', 'judge', 'record', 'summarise', 'final']);
    expect(await pausedFiles()).toEqual([]);

    // Used: a second resume with either token finds nothing.
    for (const token of [first.resumeToken, second.resumeToken]) {
      const again = await rejectionOf(resumeWorkflow(arc, token, { score: 1 }));
      expect(again.code).toBe('E_NOT_FOUND');
      expect(again.message).toMatch(/resumed already/);
    }
  });

  it('refuses an answer that fails the step outputSchema with E_OUTPUT naming the pointer; the token stays valid', async () => {
    const stopped = paused(await runWorkflow(arc, 'acme/resume', 'review', { q: 'dogs' }));
    for (const wrong of [{ score: 11 }, { score: 'high' }, 'nine', { score: 3, extra: true }]) {
      const error = await rejectionOf(resumeWorkflow(arc, stopped.resumeToken, wrong));
      expect(error.code).toBe('E_OUTPUT');
      expect(error.details).toMatchObject({ step: 'judge' });
    }
    const tooHigh = await rejectionOf(resumeWorkflow(arc, stopped.resumeToken, { score: 11 }));
    expect(tooHigh.message).toContain('/score');
    expect(paused(await resumeWorkflow(arc, stopped.resumeToken, { score: 2 })).stepId).toBe('summarise');
  });

  it('keeps the token when a later step fails, so the host can answer again', async () => {
    const stopped = paused(await runWorkflow(arc, 'acme/resume', 'count', {}));
    expect(stopped.outputSchema).toBeUndefined();
    const failed = await rejectionOf(resumeWorkflow(arc, stopped.resumeToken, 'three'));
    expect(failed).toMatchObject({ code: 'E_INPUT', details: { step: 'use' } });
    expect(await resumeWorkflow(arc, stopped.resumeToken, 3)).toMatchObject({ status: 'done', output: { n: 3 } });
  });

  it('lets exactly one of two concurrent resumes of one token run the steps', async () => {
    const stopped = paused(await runWorkflow(arc, 'acme/resume', 'count', {}));
    const settled = await Promise.allSettled([resumeWorkflow(arc, stopped.resumeToken, 1), resumeWorkflow(arc, stopped.resumeToken, 2)]);
    const ok = settled.filter((s) => s.status === 'fulfilled');
    const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(refused.map((r) => (r.reason as { code: string }).code)).toEqual(['E_NOT_FOUND']);
  });

  it('a resume token that names a path reads no file: E_USAGE before anything is opened', async () => {
    // A file a token would reach if it were joined to the runs folder as given.
    await mkdir(runsDir(), { recursive: true });
    const bait = join(storeOf(arc).home.root, 'bait.json');
    await writeFile(bait, JSON.stringify({ format: 1, capability: 'acme/resume', version: '1.0.0', workflow: 'count', stepId: 'ask' }));
    for (const token of ['../bait', '..%2Fbait', 'wfr_../../bait', `wfr_${'0'.repeat(31)}`, `WFR_${'a'.repeat(32)}`, '']) {
      const error = await rejectionOf(resumeWorkflow(arc, token, 1));
      expect(error.code, token).toBe('E_USAGE');
      expect(error.message).toContain('resumeToken');
    }
    const unknown = await rejectionOf(resumeWorkflow(arc, `wfr_${'a'.repeat(32)}`, 1));
    expect(unknown.code).toBe('E_NOT_FOUND');
  });

  it('an answer that is not JSON (a function, undefined) is E_OUTPUT', async () => {
    const stopped = paused(await runWorkflow(arc, 'acme/resume', 'count', {}));
    expect((await rejectionOf(resumeWorkflow(arc, stopped.resumeToken, undefined))).code).toBe('E_OUTPUT');
    expect((await rejectionOf(resumeWorkflow(arc, stopped.resumeToken, () => 1))).code).toBe('E_OUTPUT');
  });
});

describe('an agent step outputSchema in the workflow document', () => {
  it('must compile: a $ref to nowhere is refused when the workflow is validated (E_SCHEMA naming the pointer)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-wf-schema-'));
    await mkdir(join(dir, 'workflows'));
    const manifest = { id: 'acme/x', workflows: [{ path: 'workflows/a.json' }], tools: [] } as unknown as Manifest;
    await writeFile(
      join(dir, 'workflows/a.json'),
      JSON.stringify({ 'adcap-workflow': '1.0', id: 'a', steps: [{ id: 's', agent: 'x', outputSchema: { $ref: '#/$defs/nowhere' } }] }),
    );
    const error = await rejectionOf(validateInstalledWorkflows(manifest, dir));
    expect(error).toMatchObject({ code: 'E_SCHEMA', details: { pointer: '/workflows/0/steps/0/outputSchema', keyword: 'compile' } });
    await writeFile(
      join(dir, 'workflows/a.json'),
      JSON.stringify({ 'adcap-workflow': '1.0', id: 'a', steps: [{ id: 's', agent: 'x', outputSchema: 'not a schema' }] }),
    );
    expect((await rejectionOf(validateInstalledWorkflows(manifest, dir))).code).toBe('E_SCHEMA');
  });
});

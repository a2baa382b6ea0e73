/**
 * runWorkflow (spec §8; host contract "Workflows"): runs the tool steps of a workflow in order and
 * stops at the first agent step, returning its interpolated instruction, the results so far and a
 * resume token; without an agent step it returns the interpolated `output` mapping. resumeWorkflow
 * hands the agent's answer back (checked against the step's outputSchema, if any) and runs the steps
 * after it. Workflows are data: they run nothing but declared tools, each through runTool (grants,
 * sandbox, audit apply per step).
 */
import { AdcapError, asAdcapError } from '../errors.js';
import { manifestDigest } from '../format/canonical-json.js';
import type { Manifest } from '../format/manifest-types.js';
import { isToolStep, validateWorkflowFiles, type WorkflowAgentStep, type WorkflowDocument } from '../format/workflow-doc.js';
import { assertEnabled } from '../store/enablement.js';
import type { Arcotheon } from '../store/arcotheon.js';
import type { PackageState } from '../store/state.js';
import { storeOf } from '../store/store-of.js';
import { AuditLog, auditDigest } from './audit.js';
import { runToolIn, type RunProgress, type RunToolOptions } from './run-tool.js';
import { assertMatches } from './schemas.js';
import type { RunContext } from './context.js';
import { checkWorkspace } from './workspace.js';
import { interpolate, interpolateText, type TemplateScope } from './templates.js';
import { checkResumeToken, claimPausedRun, readPausedRun, savePausedRun, type PausedRunRecord } from './workflow-runs.js';

/** A tool step that ran. */
export interface WorkflowToolStepResult {
  /** Always `'tool'`. */
  kind: 'tool';
  /** The step's id in the workflow. */
  id: string;
  /** The capability whose tool ran (this one, or a dependency named by the step's `capability`). */
  capability: string;
  /** The tool's name. */
  tool: string;
  /** The tool's validated output. */
  output: Record<string, unknown>;
}

/** An agent step whose answer the host handed back with resumeWorkflow. */
export interface WorkflowAgentStepResult {
  /** Always `'agent'`. */
  kind: 'agent';
  /** The step's id in the workflow. */
  id: string;
  /** The agent's answer (any JSON value), as later steps read it through `{{steps.<id>.output}}`. */
  output: unknown;
}

/** One step of a workflow run, in the order the steps ran. */
export type WorkflowStepResult = WorkflowToolStepResult | WorkflowAgentStepResult;

/** What runWorkflow and resumeWorkflow return: the workflow's output, or the next agent step. */
export type WorkflowRunResult =
  | { status: 'done'; workflow: string; inputs: Record<string, unknown>; output: Record<string, unknown>; steps: WorkflowStepResult[] }
  | {
      status: 'agent';
      workflow: string;
      inputs: Record<string, unknown>;
      stepId: string;
      instruction: string;
      /** The step's outputSchema: what the answer handed to resumeWorkflow must match (absent: any JSON value). */
      outputSchema?: Record<string, unknown>;
      steps: WorkflowStepResult[];
      /** Pass it to resumeWorkflow with the agent's answer to run the steps after this one (single use). */
      resumeToken: string;
    };

/** Options of `runWorkflow()`. */
export interface RunWorkflowOptions {
  /** The folder every tool step gets as its workspace (see RunToolOptions.workspace). */
  workspace?: string | null;
  /** Cancels the run (E_CANCELLED); the running step's tool is killed. */
  signal?: AbortSignal;
  /** Told each tool step's progress, with `step` naming the step. */
  onProgress?: (progress: RunProgress & { step?: string }) => void;
  /** Passed to every tool step (see RunToolOptions). */
  env?: RunToolOptions['env'];
  /** Passed to every tool step: each step's granted env:read values, asked per capability and tool. */
  secrets?: RunToolOptions['secrets'];
  /** Passed to every tool step: the interpreters node and python tools run with. */
  interpreters?: RunToolOptions['interpreters'];
}

/** The largest agent answer resumeWorkflow takes, as JSON text (a tool's output has the same limit). */
export const MAX_AGENT_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * Reads and validates every workflow document of an installed (or extracted) capability: spec §8
 * schema, integers only, tools of this capability or of a declared dependency, unique step ids,
 * and unique workflow ids. For the install path, which validates capability.json only.
 */
export async function validateInstalledWorkflows(manifest: Manifest, dir: string): Promise<WorkflowDocument[]> {
  return validateWorkflowFiles(manifest, dir);
}

interface LoadedWorkflow {
  manifest: Manifest;
  version: string;
  state: PackageState;
  doc: WorkflowDocument;
}

/** The validated document of `workflowId` in the active version of `id` (E_NOT_FOUND when absent). */
async function loadWorkflow(arc: RunContext, id: string, workflowId: string): Promise<LoadedWorkflow> {
  const state = await arc.state(id);
  const manifest = await arc.readInstalledManifest(id, state.active);
  const docs = await validateInstalledWorkflows(manifest, arc.home.versionDir(id, state.active));
  const doc = docs.find((d) => d.id === workflowId);
  if (doc === undefined) {
    throw new AdcapError(
      'E_NOT_FOUND',
      `${id}@${state.active} has no workflow "${workflowId}"; its workflows are: ${docs.map((d) => d.id).join(', ') || 'none'}.`,
    );
  }
  return { manifest, version: state.active, state, doc };
}

/** spec §8: missing inputs take `inputs.properties.<name>.default`; the result must match the inputs schema. */
function resolveInputs(doc: WorkflowDocument, given: unknown): Record<string, unknown> {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new AdcapError('E_INPUT', `The inputs of workflow ${doc.id} must be a JSON object.`, { details: { pointer: '' } });
  }
  const inputs: Record<string, unknown> = { ...(given as Record<string, unknown>) };
  for (const [name, schema] of Object.entries(doc.inputs?.properties ?? {})) {
    if (!Object.hasOwn(inputs, name) && Object.hasOwn(schema, 'default')) {
      Object.defineProperty(inputs, name, {
        value: structuredClone(schema['default']),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  if (doc.inputs !== undefined) assertMatches(doc.inputs, inputs, 'E_INPUT', `The inputs of workflow ${doc.id}`, 'inputs schema');
  return inputs;
}

/** Where a run starts: the first step, or the step after an agent step whose answer came back. */
interface StartAt {
  index: number;
  inputs: Record<string, unknown>;
  steps: WorkflowStepResult[];
}

/**
 * Runs workflow `workflowId` of the installed capability `id` through the home of `arc` (host
 * contract "Workflows"). Returns `{ status: 'agent', stepId,
 * instruction, steps, resumeToken }` at the first agent step (the run is kept in the home until
 * resumeWorkflow takes it), else `{ status: 'done', output, steps }`. A failing tool step rejects
 * with its error (details.step names the step); E_USAGE when `arc` is not an `Arcotheon`. One audit
 * line is written for the workflow besides the lines of its tool steps.
 */
export async function runWorkflow(
  arc: Arcotheon,
  id: string,
  workflowId: string,
  inputs: unknown,
  options: RunWorkflowOptions = {},
): Promise<WorkflowRunResult> {
  return runWorkflowIn(storeOf(arc, 'runWorkflow()'), id, workflowId, inputs, options);
}

/**
 * `runWorkflow` over a narrow view of a store (the `Arcotheon`'s own, `storeOf`).
 * @internal Exported from `@arcotheon/sdk/internal` only.
 */
export async function runWorkflowIn(
  arc: RunContext,
  id: string,
  workflowId: string,
  inputs: unknown,
  options: RunWorkflowOptions = {},
): Promise<WorkflowRunResult> {
  const loaded = await loadWorkflow(arc, id, workflowId);
  return audited(arc, id, loaded, auditDigest(inputs), `Running workflow ${workflowId} of ${id} failed`, async (grantsUsed) => {
    // A disabled capability's workflows do not run (its steps would be refused anyway).
    assertEnabled(loaded.state);
    // The workspace is checked before any step (a workflow of agent steps only
    // never reaches runTool's own check); every tool step checks it again.
    await checkWorkspace(arc.home.root, options.workspace ?? null);
    const start: StartAt = { index: 0, inputs: resolveInputs(loaded.doc, inputs), steps: [] };
    return pauseOrFinish(arc, id, loaded, await execute(arc, id, loaded.doc, start, options, grantsUsed));
  });
}

/**
 * Continues a workflow that stopped at an agent step (spec §8; host contract "Workflows"): `token` is
 * the `resumeToken` runWorkflow (or an earlier resume) returned, `agentOutput` the agent's answer
 * (any JSON value; it must match the step's `outputSchema` when the workflow declares one, else
 * E_OUTPUT and the token stays valid). The steps after the agent step run as runWorkflow runs them
 * and read the answer as `{{steps.<id>.output}}`; the result is the workflow's output or the next
 * agent step with a new token. A token is used once: E_NOT_FOUND for one already resumed; when a
 * later step fails, the token stays valid for another try. The capability must still be at the
 * version that paused (E_NOT_FOUND after an update or rollback: run the workflow again). E_USAGE
 * when `arc` is not an `Arcotheon`.
 */
export async function resumeWorkflow(
  arc: Arcotheon,
  token: string,
  agentOutput: unknown,
  options: RunWorkflowOptions = {},
): Promise<WorkflowRunResult> {
  return resumeWorkflowIn(storeOf(arc, 'resumeWorkflow()'), token, agentOutput, options);
}

/**
 * `resumeWorkflow` over a narrow view of a store (the `Arcotheon`'s own, `storeOf`).
 * @internal Exported from `@arcotheon/sdk/internal` only.
 */
export async function resumeWorkflowIn(
  arc: RunContext,
  token: string,
  agentOutput: unknown,
  options: RunWorkflowOptions = {},
): Promise<WorkflowRunResult> {
  checkResumeToken(token);
  const paused = await readPausedRun<WorkflowStepResult>(arc, token);
  const id = paused.capability;
  const loaded = await loadWorkflow(arc, id, paused.workflow);
  const activeSha = loaded.state.versions[loaded.version]?.manifestSha256 ?? manifestDigest(loaded.manifest);
  if (loaded.version !== paused.version || activeSha !== paused.manifestSha256) {
    throw new AdcapError(
      'E_NOT_FOUND',
      `Workflow ${paused.workflow} of ${id} stopped at version ${paused.version}, but ${loaded.version} is installed now; ` +
        'run the workflow again from the start.',
      { details: { token, version: paused.version, installed: loaded.version } },
    );
  }
  const index = loaded.doc.steps.findIndex((s) => s.id === paused.stepId);
  const step = loaded.doc.steps[index];
  if (step === undefined || isToolStep(step)) {
    throw new AdcapError('E_NOT_FOUND', `Workflow ${paused.workflow} of ${id} has no agent step "${paused.stepId}"; run it again.`, {
      details: { token },
    });
  }
  const answer = checkAgentOutput(loaded.doc, step, agentOutput);
  const inputDigest = auditDigest({ resumed: paused.stepId, output: answer });
  return audited(arc, id, loaded, inputDigest, `Resuming workflow ${paused.workflow} of ${id} failed`, async (grantsUsed) => {
    assertEnabled(loaded.state);
    await checkWorkspace(arc.home.root, options.workspace ?? null);
    const claimed = await claimPausedRun(arc, token);
    let reached: Reached;
    try {
      const steps: WorkflowStepResult[] = [...paused.steps, { kind: 'agent', id: step.id, output: answer }];
      reached = await execute(arc, id, loaded.doc, { index: index + 1, inputs: paused.inputs, steps }, options, grantsUsed);
    } catch (error) {
      await claimed.release().catch(() => undefined);
      throw error;
    }
    const result = await pauseOrFinish(arc, id, loaded, reached);
    await claimed.finish();
    return result;
  });
}

/** The agent's answer as plain JSON, within the size limit and matching the step's outputSchema. */
function checkAgentOutput(doc: WorkflowDocument, step: WorkflowAgentStep, value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    throw new AdcapError('E_OUTPUT', `The agent's answer to step ${step.id} of workflow ${doc.id} must be a JSON value.`, {
      details: { step: step.id, pointer: '' },
    });
  }
  if (Buffer.byteLength(text) > MAX_AGENT_OUTPUT_BYTES) {
    throw new AdcapError(
      'E_OUTPUT',
      `The agent's answer to step ${step.id} of workflow ${doc.id} is larger than ${MAX_AGENT_OUTPUT_BYTES} bytes of JSON; shorten it.`,
      { details: { step: step.id, pointer: '' } },
    );
  }
  // A copy through JSON: no prototype, no getters, nothing that changes after the check.
  const answer = JSON.parse(text) as unknown;
  if (step.outputSchema !== undefined) {
    try {
      assertMatches(step.outputSchema, answer, 'E_OUTPUT', `The output of agent step ${step.id}`, 'outputSchema');
    } catch (error) {
      if (error instanceof AdcapError)
        throw new AdcapError(error.code, error.message, { cause: error, details: { ...error.details, step: step.id } });
      throw error;
    }
  }
  return answer;
}

/** Runs `work` and appends the workflow's audit line, whatever the outcome. */
async function audited(
  arc: RunContext,
  id: string,
  loaded: LoadedWorkflow,
  inputSha256: string,
  context: string,
  work: (grantsUsed: Set<string>) => Promise<WorkflowRunResult>,
): Promise<WorkflowRunResult> {
  const started = Date.now();
  const grantsUsed = new Set<string>();
  let result: WorkflowRunResult | undefined;
  let failure: AdcapError | undefined;
  try {
    result = await work(grantsUsed);
  } catch (error) {
    failure = asAdcapError(error, context);
  }
  await new AuditLog(arc.home.auditDir).append({
    kind: 'workflow',
    capability: id,
    version: loaded.version,
    manifestSha256: loaded.state.versions[loaded.version]?.manifestSha256 ?? manifestDigest(loaded.manifest),
    name: loaded.doc.id,
    inputSha256,
    outputSha256:
      result === undefined
        ? null
        : auditDigest(result.status === 'done' ? result.output : { stepId: result.stepId, instruction: result.instruction }),
    grantsUsed: [...grantsUsed].sort(),
    durationMs: Date.now() - started,
    outcome: failure === undefined ? 'ok' : 'error',
    ...(failure === undefined ? {} : { errorCode: failure.code }),
  });
  if (failure !== undefined) throw failure;
  return result as WorkflowRunResult;
}

/** Where execute stopped: the end of the workflow, or an agent step. */
type Reached =
  | { status: 'done'; inputs: Record<string, unknown>; output: Record<string, unknown>; steps: WorkflowStepResult[] }
  | { status: 'agent'; inputs: Record<string, unknown>; step: WorkflowAgentStep; instruction: string; steps: WorkflowStepResult[] };

/** At an agent step the run is kept in the home (workflow-runs.ts) and its token handed out. */
async function pauseOrFinish(arc: RunContext, id: string, loaded: LoadedWorkflow, reached: Reached): Promise<WorkflowRunResult> {
  const workflow = loaded.doc.id;
  if (reached.status === 'done') return { status: 'done', workflow, inputs: reached.inputs, output: reached.output, steps: reached.steps };
  const record: PausedRunRecord<WorkflowStepResult> = {
    format: 1,
    capability: id,
    version: loaded.version,
    manifestSha256: loaded.state.versions[loaded.version]?.manifestSha256 ?? manifestDigest(loaded.manifest),
    workflow,
    inputs: reached.inputs,
    stepId: reached.step.id,
    steps: reached.steps,
    pausedAt: new Date().toISOString(),
  };
  const resumeToken = await savePausedRun(arc, record);
  return {
    status: 'agent',
    workflow,
    inputs: reached.inputs,
    stepId: reached.step.id,
    instruction: reached.instruction,
    ...(reached.step.outputSchema === undefined ? {} : { outputSchema: reached.step.outputSchema }),
    steps: reached.steps,
    resumeToken,
  };
}

async function execute(
  arc: RunContext,
  id: string,
  doc: WorkflowDocument,
  start: StartAt,
  options: RunWorkflowOptions,
  grantsUsed: Set<string>,
): Promise<Reached> {
  const { inputs } = start;
  // Null prototype: a step id such as "__proto__" is an ordinary key here.
  const scope: TemplateScope = { inputs, steps: Object.create(null) as TemplateScope['steps'] };
  const steps: WorkflowStepResult[] = [...start.steps];
  for (const done of steps) scope.steps[done.id] = { output: done.output };
  for (const step of doc.steps.slice(start.index)) {
    if (!isToolStep(step)) {
      // spec §8: an agent step is for the host's agent; the runner stops and hands over.
      return { status: 'agent', inputs, step, instruction: interpolateText(step.agent, scope), steps };
    }
    const capability = step.capability ?? id;
    const input = step.input === undefined ? {} : interpolate(step.input, scope);
    let ran;
    try {
      ran = await runToolIn(arc, capability, step.tool, input, {
        ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
        ...(options.interpreters === undefined ? {} : { interpreters: options.interpreters }),
        ...(options.onProgress === undefined ? {} : { onProgress: (p: RunProgress) => options.onProgress?.({ ...p, step: step.id }) }),
      });
    } catch (error) {
      const e = asAdcapError(error, `Step ${step.id} failed`);
      throw new AdcapError(e.code, `Workflow ${doc.id}, step ${step.id}: ${e.message}`, {
        cause: e.cause,
        details: { ...e.details, step: step.id },
      });
    }
    for (const g of ran.grantsUsed) grantsUsed.add(capability === id ? g : `${capability} ${g}`);
    scope.steps[step.id] = { output: ran.output };
    steps.push({ kind: 'tool', id: step.id, capability, tool: step.tool, output: ran.output });
  }
  const output = doc.output === undefined ? {} : (interpolate(doc.output, scope) as Record<string, unknown>);
  return { status: 'done', inputs, output, steps };
}

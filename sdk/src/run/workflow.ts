/**
 * runWorkflow (spec §8; host contract "Workflows"): runs the tool steps of a workflow in order and
 * stops at the first agent step, returning its interpolated instruction and the results so far;
 * without an agent step it returns the interpolated `output` mapping. Workflows are data: they run
 * nothing but declared tools, each through runTool (grants, sandbox, audit apply per step).
 */
import { AdcapError, asAdcapError } from '../errors.js';
import { manifestDigest } from '../format/canonical-json.js';
import type { Manifest } from '../format/manifest-types.js';
import { isToolStep, validateWorkflowFiles, type WorkflowDocument } from '../format/workflow-doc.js';
import { assertEnabled } from '../store/enablement.js';
import { AuditLog, auditDigest } from './audit.js';
import { runTool, type RunProgress, type RunToolOptions } from './run-tool.js';
import { assertMatches } from './schemas.js';
import type { RunContext } from './context.js';
import { checkWorkspace } from './workspace.js';
import { interpolate, interpolateText, type TemplateScope } from './templates.js';

export interface WorkflowStepResult {
  id: string;
  /** The capability whose tool ran (this one, or a dependency named by the step's `capability`). */
  capability: string;
  tool: string;
  output: Record<string, unknown>;
}

export type WorkflowRunResult =
  | { status: 'done'; workflow: string; inputs: Record<string, unknown>; output: Record<string, unknown>; steps: WorkflowStepResult[] }
  | {
      status: 'agent';
      workflow: string;
      inputs: Record<string, unknown>;
      stepId: string;
      instruction: string;
      steps: WorkflowStepResult[];
    };

export interface RunWorkflowOptions {
  workspace?: string | null;
  signal?: AbortSignal;
  onProgress?: (progress: RunProgress & { step?: string }) => void;
  /** Passed to every tool step (see RunToolOptions). */
  env?: RunToolOptions['env'];
  /** Passed to every tool step: each step's granted env:read values, asked per capability and tool. */
  secrets?: RunToolOptions['secrets'];
  interpreters?: RunToolOptions['interpreters'];
}

/**
 * Reads and validates every workflow document of an installed (or extracted) capability: spec §8
 * schema, integers only, tools of this capability or of a declared dependency, unique step ids,
 * and unique workflow ids. For the install path, which validates capability.json only.
 */
export async function validateInstalledWorkflows(manifest: Manifest, dir: string): Promise<WorkflowDocument[]> {
  return validateWorkflowFiles(manifest, dir);
}

/** The validated document of `workflowId` in the active version of `id` (E_NOT_FOUND when absent). */
async function loadWorkflow(
  arc: RunContext,
  id: string,
  workflowId: string,
): Promise<{ manifest: Manifest; version: string; doc: WorkflowDocument }> {
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
  return { manifest, version: state.active, doc };
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

/**
 * Runs workflow `workflowId` of the installed capability `id`. Returns `{ status: 'agent', stepId,
 * instruction, steps }` at the first agent step, else `{ status: 'done', output, steps }`. A failing
 * tool step rejects with its error (details.step names the step). One audit line is written for
 * the workflow besides the lines of its tool steps.
 */
export async function runWorkflow(
  arc: RunContext,
  id: string,
  workflowId: string,
  inputs: unknown,
  options: RunWorkflowOptions = {},
): Promise<WorkflowRunResult> {
  const started = Date.now();
  const { manifest, version, doc } = await loadWorkflow(arc, id, workflowId);
  const state = await arc.state(id);
  const grantsUsed = new Set<string>();
  let result: WorkflowRunResult | undefined;
  let failure: AdcapError | undefined;
  try {
    // issue 17: a disabled capability's workflows do not run (its steps would be refused anyway).
    assertEnabled(state);
    // Issue 24 item 2: the workspace is checked before any step (a workflow of agent steps only
    // never reaches runTool's own check); every tool step checks it again.
    await checkWorkspace(arc.home.root, options.workspace ?? null);
    result = await execute(arc, id, doc, inputs, options, grantsUsed);
  } catch (error) {
    failure = asAdcapError(error, `Running workflow ${workflowId} of ${id} failed`);
  }
  await new AuditLog(arc.home.auditDir).append({
    kind: 'workflow',
    capability: id,
    version,
    manifestSha256: state.versions[version]?.manifestSha256 ?? manifestDigest(manifest),
    name: workflowId,
    inputSha256: auditDigest(inputs),
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

async function execute(
  arc: RunContext,
  id: string,
  doc: WorkflowDocument,
  given: unknown,
  options: RunWorkflowOptions,
  grantsUsed: Set<string>,
): Promise<WorkflowRunResult> {
  const inputs = resolveInputs(doc, given);
  // Null prototype: a step id such as "__proto__" is an ordinary key here.
  const scope: TemplateScope = { inputs, steps: Object.create(null) as TemplateScope['steps'] };
  const steps: WorkflowStepResult[] = [];
  for (const step of doc.steps) {
    if (!isToolStep(step)) {
      // spec §8: an agent step is for the host's agent; the runner stops and hands over.
      return { status: 'agent', workflow: doc.id, inputs, stepId: step.id, instruction: interpolateText(step.agent, scope), steps };
    }
    const capability = step.capability ?? id;
    const input = step.input === undefined ? {} : interpolate(step.input, scope);
    let ran;
    try {
      ran = await runTool(arc, capability, step.tool, input, {
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
    steps.push({ id: step.id, capability, tool: step.tool, output: ran.output });
  }
  const output = doc.output === undefined ? {} : (interpolate(doc.output, scope) as Record<string, unknown>);
  return { status: 'done', workflow: doc.id, inputs, output, steps };
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AdcapError } from '../errors.js';
import { escapePointer } from './canonical-json.js';
import { assertSchema, findNonInteger, schemaCompileProblem, schemaValidator } from './json-schema.js';
import { ADCAP_SUPPORTED_MAJOR, type Manifest } from './manifest-types.js';
import { parseStrictJson } from './strict-json.js';

/** A workflow document (spec §8), as it is after `validateWorkflowDocument`. */
export interface WorkflowDocument {
  /** The workflow format version, `"1.0"`. */
  'adcap-workflow': string;
  /** The workflow's id, unique in its capability (what runWorkflow takes). */
  id: string;
  /** A display name. */
  name?: string;
  /** What the workflow does, for the user and the agent. */
  description?: string;
  /** A JSON Schema for the inputs; `properties.<name>.default` fills missing inputs. */
  inputs?: { properties?: Record<string, Record<string, unknown>>; [keyword: string]: unknown };
  /** The steps, run in order. */
  steps: WorkflowStep[];
  /** The output mapping; its templates are interpolated after the last step. */
  output?: Record<string, unknown>;
}

/** A workflow step that calls a declared tool (spec §8) with templated input. */
export interface WorkflowToolStep {
  /** The step's id, unique in the workflow; later steps read its output as `{{steps.<id>.output}}`. */
  id: string;
  /** The name of the tool to call. */
  tool: string;
  /** A declared dependency whose tool this step calls (spec §8); the capability itself when absent. */
  capability?: string;
  /**
   * The tool's input, its `{{...}}` templates filled in before the call; a string that is one whole template, such as `{{steps.a.output}}`,
   * passes that value.
   */
  input?: Record<string, unknown> | string;
}

/** A workflow step only the host agent can carry out (spec §8): an instruction, with templates. */
export interface WorkflowAgentStep {
  /** The step's id, unique in the workflow; later steps read the agent's answer as `{{steps.<id>.output}}`. */
  id: string;
  /** The instruction for the host's agent, with `{{...}}` templates filled in. */
  agent: string;
  /**
   * A JSON Schema the agent's answer must match: resumeWorkflow checks it (E_OUTPUT) before the
   * steps after this one run, and those steps read the answer as `{{steps.<id>.output}}`.
   */
  outputSchema?: Record<string, unknown>;
}

/** One step of a workflow (spec §8): a tool step or an agent step. */
export type WorkflowStep = WorkflowToolStep | WorkflowAgentStep;

/** Whether a workflow step calls a tool (rather than asking the agent). */
export function isToolStep(step: WorkflowStep): step is WorkflowToolStep {
  return 'tool' in step;
}

/** The workflow rules checked after the schema; failures are E_SEMANTIC with `details: { rule, pointer }`. */
export const WORKFLOW_RULES = [
  'workflow-step-unique',
  'workflow-tool-exists',
  'workflow-dependency-declared',
  'workflow-template',
] as const;
export type WorkflowRule = (typeof WORKFLOW_RULES)[number];

const SCHEMA_FILE = 'workflow-1.json';

/** spec §8: `{{path}}`, where path is dot-separated segments. */
const TEMPLATE = /\{\{([^{}]*)\}\}/g;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Parses the path inside `{{ ... }}` into segments (`steps.analyze.output.x` -> ["steps", "analyze",
 * "output", "x"]). Returns undefined when it is not a dot-separated list of names or indices.
 */
export function parseTemplatePath(path: string): string[] | undefined {
  const segments = path.trim().split('.');
  return segments.every((s) => SEGMENT.test(s)) ? segments : undefined;
}

/** The template paths (text between `{{` and `}}`) in a string, in order. */
export function templatePaths(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((m) => m[1] ?? '');
}

function fail(rule: WorkflowRule, pointer: string, problem: string): never {
  throw new AdcapError('E_SEMANTIC', `[${rule}] ${pointer || '/'} ${problem}.`, { details: { rule, pointer } });
}

/**
 * Validates a parsed workflow document against the manifest that lists it (spec §8): the schema
 * (integers only), unique step ids, tool steps naming a tool of this capability or of a declared
 * dependency (`capability`), and templates that read only `inputs.*` or the output of an earlier
 * step. `pointer` prefixes every pointer in messages (e.g. "workflows/main.json#").
 */
export function validateWorkflowDocument(value: unknown, manifest: Manifest, pointer: string): WorkflowDocument {
  checkWorkflowVersion(value, pointer);
  const nonInteger = findNonInteger(value);
  if (nonInteger !== undefined) {
    throw new AdcapError(
      'E_SCHEMA',
      `The workflow document does not match its schema: ${pointer}${nonInteger} ` +
        'must be an integer, because signed data holds integers only (integer).',
      {
        details: { pointer: pointer + nonInteger, keyword: 'integer' },
      },
    );
  }
  assertSchema(schemaValidator(SCHEMA_FILE), value, 'The workflow document', pointer);
  const doc = value as WorkflowDocument;
  const toolNames = new Set((manifest.tools ?? []).map((t) => t.name));
  const earlier = new Set<string>();
  doc.steps.forEach((step, index) => {
    const at = `${pointer}/steps/${index}`;
    if (earlier.has(step.id))
      fail('workflow-step-unique', `${at}/id`, `repeats the step id ${JSON.stringify(step.id)}; step ids must be unique`);
    if (isToolStep(step)) {
      checkToolStep(step, manifest, toolNames, at);
      if (step.input !== undefined) checkTemplates(step.input, earlier, `${at}/input`);
    } else {
      checkTemplates(step.agent, earlier, `${at}/agent`);
      if (step.outputSchema !== undefined) checkOutputSchemaCompiles(step.outputSchema, `${at}/outputSchema`);
    }
    earlier.add(step.id);
  });
  if (doc.output !== undefined) checkTemplates(doc.output, earlier, `${pointer}/output`);
  return doc;
}

/** An agent step's answer is checked against its outputSchema when the workflow resumes, so it must compile. */
function checkOutputSchemaCompiles(schema: Record<string, unknown>, pointer: string): void {
  const problem = schemaCompileProblem(schema);
  if (problem === undefined) return;
  throw new AdcapError(
    'E_SCHEMA',
    `The workflow document does not match its schema: ${pointer} is not a usable JSON Schema: ${problem} (compile).`,
    { details: { pointer, keyword: 'compile' } },
  );
}

function checkWorkflowVersion(value: unknown, pointer: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return; // the schema says so
  const version = (value as Record<string, unknown>)['adcap-workflow'];
  const match = typeof version === 'string' ? /^(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$/.exec(version) : null;
  if (match !== null && Number(match[1]) > ADCAP_SUPPORTED_MAJOR) {
    throw new AdcapError(
      'E_VERSION_MAJOR',
      `The workflow document at ${pointer || '/'} uses workflow format ${version}, which is newer ` +
        `than this software supports (major ${ADCAP_SUPPORTED_MAJOR}); update Arcotheon to use it.`,
      {
        details: { pointer: `${pointer}/adcap-workflow` },
      },
    );
  }
}

/** spec §8: a tool step calls a tool of this capability, or of `capability` when given. */
function checkToolStep(step: WorkflowToolStep, manifest: Manifest, toolNames: Set<string>, at: string): void {
  if (step.capability !== undefined && step.capability !== manifest.id) {
    if (manifest.dependencies === undefined || !Object.hasOwn(manifest.dependencies, step.capability)) {
      fail(
        'workflow-dependency-declared',
        `${at}/capability`,
        `calls a tool of ${step.capability}, which is not in the capability's dependencies; add it there`,
      );
    }
    return; // the dependency's tools are checked when it is resolved, not here
  }
  if (!toolNames.has(step.tool)) {
    fail(
      'workflow-tool-exists',
      `${at}/tool`,
      `calls the tool ${JSON.stringify(step.tool)}, which this capability does not declare in tools`,
    );
  }
}

/** spec §8: templates read from `inputs` and `steps.<id>.output` (of a step that ran before). */
function checkTemplates(value: unknown, earlier: ReadonlySet<string>, pointer: string): void {
  if (typeof value === 'string') {
    for (const raw of templatePaths(value)) checkTemplatePath(raw, earlier, pointer);
    const stripped = value.replace(TEMPLATE, '');
    if (stripped.includes('{{'))
      fail('workflow-template', pointer, 'has a "{{" without a matching "}}"; close the template or remove the braces');
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkTemplates(item, earlier, `${pointer}/${i}`));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) checkTemplates(child, earlier, `${pointer}/${escapePointer(key)}`);
  }
}

function checkTemplatePath(raw: string, earlier: ReadonlySet<string>, pointer: string): void {
  const segments = parseTemplatePath(raw);
  const shown = JSON.stringify(`{{${raw}}}`);
  if (segments === undefined)
    fail('workflow-template', pointer, `has the template ${shown}, which is not a dotted path such as {{inputs.name}}`);
  const [root, stepId, output] = segments;
  if (root === 'inputs') return;
  if (root === 'steps' && stepId !== undefined && output === 'output') {
    if (earlier.has(stepId)) return;
    fail(
      'workflow-template',
      pointer,
      `has the template ${shown}, which reads step ${JSON.stringify(stepId)} before it has run; a template may read only earlier steps`,
    );
  }
  fail('workflow-template', pointer, `has the template ${shown}; templates may read only inputs.<name> or steps.<earlier step id>.output`);
}

/**
 * Every workflow document of a capability, read from its folder (a source folder at build time,
 * an installed one at install and run time) and validated (spec §8): the document rules above,
 * plus workflow ids unique across the capability (DESIGN §3).
 */
export async function validateWorkflowFiles(manifest: Manifest, dir: string): Promise<WorkflowDocument[]> {
  const docs: WorkflowDocument[] = [];
  const ids = new Set<string>();
  for (const [index, ref] of (manifest.workflows ?? []).entries()) {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dir, ...ref.path.split('/')));
    } catch (error) {
      throw new AdcapError(
        'E_MISSING',
        `The workflow ${ref.path} of ${manifest.id} cannot be read; check that the file exists (reinstall an installed capability).`,
        { cause: error },
      );
    }
    const doc = validateWorkflowDocument(parseStrictJson(bytes, `The workflow ${ref.path}`), manifest, `/workflows/${index}`);
    if (ids.has(doc.id)) {
      throw new AdcapError(
        'E_SEMANTIC',
        `[workflow-id-unique] /workflows/${index} repeats the workflow id ${JSON.stringify(doc.id)}; workflow ids must be unique.`,
        {
          details: { rule: 'workflow-id-unique', pointer: `/workflows/${index}` },
        },
      );
    }
    ids.add(doc.id);
    docs.push(doc);
  }
  return docs;
}

/**
 * Workflow templates (spec §8): `{{path}}` reads from `inputs` and `steps.<id>.output`.
 *
 * - A string that is exactly one template keeps the value's type (an object stays an object).
 * - A template inside a longer string is stringified: strings as they are, other values as JSON,
 *   a missing value as the empty string.
 * - An object key whose value comes out undefined is dropped; an undefined array item becomes null
 *   (JSON has no undefined, and dropping it would shift the items after it).
 *
 * Public (sdk/README.md "Workflows"): a host that shows or rebuilds an agent step's instruction, or
 * checks what a template reads, uses the same rules as runWorkflow through `interpolateTemplates`,
 * `interpolateInstruction` and `templateValue`.
 */
import { parseTemplatePath } from '../format/workflow-doc.js';

/** What templates read: the workflow's inputs and the output of each step that ran so far. */
export interface TemplateScope {
  /** The workflow's inputs, defaults filled in. */
  inputs: Record<string, unknown>;
  /**
   * step id -> { output } of the steps that ran so far: a tool step's output object, or the answer
   * (any JSON value) the host handed back for an agent step with resumeWorkflow.
   */
  steps: Record<string, { output: unknown }>;
}

const WHOLE = /^\{\{([^{}]*)\}\}$/;
const ANY = /\{\{([^{}]*)\}\}/g;

/**
 * The value at a template path such as `steps.analyze.output.rows` (the text between `{{` and `}}`),
 * or undefined when any segment is missing. Only own properties are read.
 */
export function lookup(pathText: string, scope: TemplateScope): unknown {
  const segments = parseTemplatePath(pathText);
  if (segments === undefined) return undefined;
  const [root, ...rest] = segments;
  let current: unknown;
  if (root === 'inputs') current = scope.inputs;
  else if (root === 'steps') current = scope.steps;
  else return undefined;
  for (const segment of rest) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null) {
      // Own properties only: a template can never reach __proto__ or constructor.
      current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

function stringify(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** Interpolates a template string (spec §8 whole-string rule). */
function interpolateString(text: string, scope: TemplateScope): unknown {
  const whole = WHOLE.exec(text);
  if (whole !== null) return lookup(whole[1] ?? '', scope);
  return text.replace(ANY, (_all, p: string) => stringify(lookup(p, scope)));
}

/**
 * Interpolates every string in a JSON value (spec §8): a string that is one whole template keeps the
 * value's type, a template inside longer text is stringified, and undefined object values are dropped.
 */
export function interpolate(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') return interpolateString(value, scope);
  if (Array.isArray(value)) {
    return value.map((item) => {
      const v = interpolate(item, scope);
      return v === undefined ? null : v;
    });
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const v = interpolate(child, scope);
      // defineProperty: a key named "__proto__" stays a plain key, never the prototype.
      if (v !== undefined) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/**
 * Interpolates an agent step's instruction: always text, so a whole-string template of an object
 * becomes its JSON and a missing value the empty string.
 */
export function interpolateText(text: string, scope: TemplateScope): string {
  return stringify(interpolateString(text, scope));
}

/**
 * Workflow templates (spec §8): `{{path}}` reads from `inputs` and `steps.<id>.output`.
 *
 * - A string that is exactly one template keeps the value's type (an object stays an object).
 * - A template inside a longer string is stringified: strings as they are, other values as JSON,
 *   a missing value as the empty string.
 * - An object key whose value comes out undefined is dropped; an undefined array item becomes null
 *   (JSON has no undefined, and dropping it would shift the items after it).
 */
import { parseTemplatePath } from '../format/workflow-doc.js';

export interface TemplateScope {
  inputs: Record<string, unknown>;
  /** step id -> { output } of the steps that ran so far. */
  steps: Record<string, { output: Record<string, unknown> }>;
}

const WHOLE = /^\{\{([^{}]*)\}\}$/;
const ANY = /\{\{([^{}]*)\}\}/g;

/** The value at a template path, or undefined when any segment is missing. */
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

/** Interpolates every string in a JSON value; undefined object values are dropped. */
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

/** An agent instruction: always text, so a whole-string template of an object becomes its JSON. */
export function interpolateText(text: string, scope: TemplateScope): string {
  return stringify(interpolateString(text, scope));
}

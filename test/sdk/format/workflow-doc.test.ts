/** spec §8: workflow documents — schema, step ids, tool references and templates. */
import { describe, expect, it } from 'vitest';
import {
  parseTemplatePath,
  templatePaths,
  validateWorkflowDocument,
  WORKFLOW_RULES,
  type WorkflowRule,
} from '../../../sdk/src/format/workflow-doc.js';
import { captureAdcapError, minimalManifest, nodeTool } from '../../helpers/manifest-fixtures.js';

const manifest = minimalManifest({ tools: [nodeTool('vi_analyze_image'), nodeTool('echo')], dependencies: { 'acme/base': '^1.0.0' } });
const AT = 'workflows/main.json#';

/** The example of spec §8, verbatim. */
const specExample = {
  'adcap-workflow': '1.0',
  id: 'analyze-and-recommend',
  inputs: { properties: { limit: { default: 4 } } },
  steps: [
    { id: 'analyze', tool: 'vi_analyze_image', input: { path: '{{inputs.path}}' } },
    { id: 'advise', agent: 'Explain {{steps.analyze.output.suggested_query}}.' },
  ],
  output: { measurements: '{{steps.analyze.output}}' },
};

type Doc = Record<string, unknown>;
const withSteps = (steps: unknown[], extra: Doc = {}): Doc => ({ 'adcap-workflow': '1.0', id: 'w', steps, ...extra });

function expectRule(value: unknown, rule: WorkflowRule, pointer: string): void {
  const error = captureAdcapError(() => validateWorkflowDocument(value, manifest, AT));
  expect(error.code).toBe('E_SEMANTIC');
  expect(error.details).toEqual({ rule, pointer: AT + pointer });
  expect(error.message.startsWith(`[${rule}] ${AT}${pointer} `)).toBe(true);
}

function expectSchema(value: unknown, pointer: string, keyword: string): void {
  const error = captureAdcapError(() => validateWorkflowDocument(value, manifest, AT));
  expect(error.code).toBe('E_SCHEMA');
  expect(error.details.pointer).toBe(AT + pointer);
  expect(error.details.keyword).toBe(keyword);
  expect(error.message).toContain(`(${keyword})`);
}

describe('validateWorkflowDocument', () => {
  it('accepts the example of spec §8', () => {
    expect(validateWorkflowDocument(specExample, manifest, AT)).toBe(specExample);
  });

  it('accepts a tool step of a declared dependency, and of the capability named explicitly', () => {
    const doc = withSteps([
      { id: 'a', tool: 'remote_tool', capability: 'acme/base', input: '{{inputs}}' },
      { id: 'b', tool: 'echo', capability: manifest.id, input: { text: '{{steps.a.output.text}}', list: ['{{steps.a.output.items.0}}'] } },
    ]);
    expect(() => validateWorkflowDocument(doc, manifest, AT)).not.toThrow();
  });

  describe('schema', () => {
    it.each([
      ['a missing version', { id: 'w', steps: [{ id: 'a', agent: 'x' }] }, '', 'required'],
      ['a wrong version form', withSteps([{ id: 'a', agent: 'x' }], { 'adcap-workflow': '1' }), '/adcap-workflow', 'pattern'],
      ['no steps', withSteps([]), '/steps', 'minItems'],
      ['a step that is both tool and agent', withSteps([{ id: 'a', tool: 'echo', agent: 'x' }]), '/steps/0', 'oneOf'],
      ['a step that is neither', withSteps([{ id: 'a' }]), '/steps/0', 'oneOf'],
      ['a step id with a dot', withSteps([{ id: 'a.b', agent: 'x' }]), '/steps/0/id', 'pattern'],
      ['an unknown top-level field', withSteps([{ id: 'a', agent: 'x' }], { run: 'rm -rf /' }), '', 'additionalProperties'],
      ['inputs that are not a JSON Schema', withSteps([{ id: 'a', agent: 'x' }], { inputs: { type: 'text' } }), '/inputs/type', 'enum'],
      ['a float anywhere', withSteps([{ id: 'a', tool: 'echo', input: { n: 0.5 } }]), '/steps/0/input/n', 'integer'],
      ['a non-object output', withSteps([{ id: 'a', agent: 'x' }], { output: ['x'] }), '/output', 'type'],
    ])('refuses %s', (_label, value, pointer, keyword) => expectSchema(value, pointer, keyword));

    it('refuses a newer workflow major with E_VERSION_MAJOR', () => {
      const error = captureAdcapError(() =>
        validateWorkflowDocument(withSteps([{ id: 'a', agent: 'x' }], { 'adcap-workflow': '2.0' }), manifest, AT),
      );
      expect(error.code).toBe('E_VERSION_MAJOR');
    });
  });

  const ruleCases: Record<WorkflowRule, { ok: Doc; bad: Doc; pointer: string }[]> = {
    'workflow-step-unique': [
      {
        ok: withSteps([
          { id: 'a', agent: 'x' },
          { id: 'b', agent: 'y' },
        ]),
        bad: withSteps([
          { id: 'a', agent: 'x' },
          { id: 'a', agent: 'y' },
        ]),
        pointer: '/steps/1/id',
      },
    ],
    'workflow-tool-exists': [
      { ok: withSteps([{ id: 'a', tool: 'echo' }]), bad: withSteps([{ id: 'a', tool: 'missing_tool' }]), pointer: '/steps/0/tool' },
    ],
    'workflow-dependency-declared': [
      {
        ok: withSteps([{ id: 'a', tool: 'x', capability: 'acme/base' }]),
        bad: withSteps([{ id: 'a', tool: 'x', capability: 'acme/undeclared' }]),
        pointer: '/steps/0/capability',
      },
    ],
    'workflow-template': [
      {
        ok: withSteps([{ id: 'a', agent: 'Use {{ inputs.topic }}.' }]),
        bad: withSteps([{ id: 'a', agent: 'Use {{ env.HOME }}.' }]),
        pointer: '/steps/0/agent',
      },
      {
        ok: withSteps([
          { id: 'a', tool: 'echo' },
          { id: 'b', agent: '{{steps.a.output}}' },
        ]),
        bad: withSteps([
          { id: 'a', agent: '{{steps.b.output}}' },
          { id: 'b', tool: 'echo' },
        ]),
        pointer: '/steps/0/agent',
      },
      {
        ok: withSteps([
          { id: 'a', tool: 'echo' },
          { id: 'b', agent: '{{steps.a.output}}' },
        ]),
        bad: withSteps([
          { id: 'a', tool: 'echo' },
          { id: 'b', agent: '{{steps.a.input}}' },
        ]),
        pointer: '/steps/1/agent',
      },
      {
        ok: withSteps([{ id: 'a', tool: 'echo', input: { t: '{{inputs.t}}' } }]),
        bad: withSteps([{ id: 'a', tool: 'echo', input: { t: '{{steps.a.output}}' } }]),
        pointer: '/steps/0/input/t',
      },
      {
        ok: withSteps([{ id: 'a', tool: 'echo' }], { output: { r: '{{steps.a.output.x}}' } }),
        bad: withSteps([{ id: 'a', tool: 'echo' }], { output: { 'a/b': '{{steps.z.output}}' } }),
        pointer: '/output/a~1b',
      },
      {
        ok: withSteps([{ id: 'a', agent: 'say {{inputs.x}}' }]),
        bad: withSteps([{ id: 'a', agent: 'say {{inputs.x' }]),
        pointer: '/steps/0/agent',
      },
      {
        ok: withSteps([{ id: 'a', agent: 'say {{inputs.x}}' }]),
        bad: withSteps([{ id: 'a', agent: 'say {{inputs..x}}' }]),
        pointer: '/steps/0/agent',
      },
    ],
  };

  it('has cases for every exported workflow rule', () => {
    expect(Object.keys(ruleCases).sort()).toEqual([...WORKFLOW_RULES].sort());
  });

  for (const rule of WORKFLOW_RULES) {
    ruleCases[rule].forEach((c, i) => {
      it(`${rule} #${i + 1}: passes`, () => expect(validateWorkflowDocument(c.ok, manifest, AT)).toBe(c.ok));
      it(`${rule} #${i + 1}: fails at ${c.pointer}`, () => expectRule(c.bad, rule, c.pointer));
    });
  }
});

describe('template helpers', () => {
  it('parseTemplatePath splits dotted paths and refuses anything else', () => {
    expect(parseTemplatePath('steps.analyze.output.suggested_query')).toEqual(['steps', 'analyze', 'output', 'suggested_query']);
    expect(parseTemplatePath(' inputs.path ')).toEqual(['inputs', 'path']);
    expect(parseTemplatePath('steps.a.output.items.0')).toEqual(['steps', 'a', 'output', 'items', '0']);
    expect(parseTemplatePath('inputs..x')).toBeUndefined();
    expect(parseTemplatePath('inputs[0]')).toBeUndefined();
    expect(parseTemplatePath('')).toBeUndefined();
  });
  it('templatePaths finds every template in a string', () => {
    expect(templatePaths('a {{inputs.x}} b {{ steps.s.output }}')).toEqual(['inputs.x', ' steps.s.output ']);
    expect(templatePaths('no templates')).toEqual([]);
  });
});

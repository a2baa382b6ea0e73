// spec §8 templates, exactly as specified.
import { describe, expect, it } from 'vitest';
import { interpolate, interpolateText, lookup, type TemplateScope } from '../../../sdk/src/run/templates.js';

const scope: TemplateScope = {
  inputs: { limit: 4, q: 'cats', flags: { fast: true }, list: ['a', 'b'], nothing: null },
  steps: { analyze: { output: { score: 0.5, tags: ['x'], nested: { deep: 'yes' } } } },
};

describe('workflow templates (spec §8)', () => {
  it("a whole-string template keeps the value's type (number, object, array, boolean, null)", () => {
    expect(interpolate('{{inputs.limit}}', scope)).toBe(4);
    expect(interpolate('{{steps.analyze.output}}', scope)).toEqual({ score: 0.5, tags: ['x'], nested: { deep: 'yes' } });
    expect(interpolate('{{inputs.list}}', scope)).toEqual(['a', 'b']);
    expect(interpolate('{{inputs.flags.fast}}', scope)).toBe(true);
    expect(interpolate('{{inputs.nothing}}', scope)).toBeNull();
  });

  it('a key whose value is undefined is dropped', () => {
    expect(interpolate({ a: '{{inputs.missing}}', b: '{{inputs.q}}', c: { d: '{{steps.nope.output}}' } }, scope)).toEqual({
      b: 'cats',
      c: {},
    });
  });

  it('partial templates stringify: strings as they are, other values as JSON, missing as empty', () => {
    expect(interpolate('limit={{inputs.limit}} q={{inputs.q}} tags={{steps.analyze.output.tags}} x={{inputs.missing}}!', scope)).toBe(
      'limit=4 q=cats tags=["x"] x=!',
    );
  });

  it('array items and indices: an undefined item becomes null, numeric segments index arrays', () => {
    expect(interpolate(['{{inputs.q}}', '{{inputs.missing}}'], scope)).toEqual(['cats', null]);
    expect(lookup('inputs.list.1', scope)).toBe('b');
    expect(lookup('steps.analyze.output.tags.0', scope)).toBe('x');
  });

  it('templates read own properties only: __proto__ and constructor resolve to nothing', () => {
    expect(lookup('inputs.__proto__', scope)).toBeUndefined();
    expect(lookup('inputs.constructor', scope)).toBeUndefined();
    const out = interpolate(JSON.parse('{"__proto__": "{{inputs.q}}"}'), scope) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });

  it('an agent instruction is always text: an object becomes its JSON', () => {
    expect(interpolateText('{{steps.analyze.output.nested}}', scope)).toBe('{"deep":"yes"}');
    expect(interpolateText('Explain {{steps.analyze.output.nested.deep}}.', scope)).toBe('Explain yes.');
  });

  it('non-string values pass through untouched', () => {
    expect(interpolate({ n: 1, b: false, z: null }, scope)).toEqual({ n: 1, b: false, z: null });
  });
});

/** spec §3.1: SKILL.md front matter rules, one block per rule. */
import { describe, expect, it } from 'vitest';
import { extractFrontMatter, skillDocumentProblems, SKILL_RULES, validateSkillDocument } from '../../../sdk/src/format/skills.js';
import { captureAdcapError } from '../../helpers/manifest-fixtures.js';

const doc = (front: string, body = '# Skill\n'): string => `---\n${front}\n---\n\n${body}`;

function expectRule(dir: string, text: string, rule: (typeof SKILL_RULES)[number]): void {
  const error = captureAdcapError(() => validateSkillDocument(dir, text, '/skills/0/path'));
  expect(error.code).toBe('E_SEMANTIC');
  expect(error.details).toEqual({ rule, pointer: '/skills/0/path' });
  expect(error.message.startsWith(`[${rule}] /skills/0/path `)).toBe(true);
}

describe('validateSkillDocument', () => {
  it('has a block below for every exported skill rule', () => {
    expect([...SKILL_RULES].sort()).toEqual([
      'skill-allowed-tools',
      'skill-compatibility',
      'skill-description',
      'skill-front-matter',
      'skill-license',
      'skill-metadata',
      'skill-name',
      'skill-name-matches-dir',
    ]);
  });

  it('returns name and description of a valid SKILL.md', () => {
    expect(validateSkillDocument('pdf-tools', doc('name: pdf-tools\ndescription: Work with PDF files.'), '/skills/0/path')).toEqual({
      name: 'pdf-tools',
      description: 'Work with PDF files.',
    });
  });

  it('parses real YAML: quoting, block scalars, CRLF, extra keys, a BOM', () => {
    const text =
      '\ufeff---\r\nname: "pdf"\r\ndescription: >-\r\n  Folded\r\n  text.\r\nlicense: MIT\r\nmetadata:\r\n  version: 2\r\n---\r\nbody\r\n';
    expect(validateSkillDocument('pdf', text, '/skills/0/path')).toEqual({ name: 'pdf', description: 'Folded text.' });
  });

  describe('skill-front-matter', () => {
    it('passes with front matter at the top', () => {
      expect(extractFrontMatter('---\na: 1\n---\nrest')).toBe('a: 1');
    });
    it.each([
      ['no front matter', '# Just markdown\n'],
      ['front matter not at the top', '\n---\nname: a\ndescription: b\n---\n'],
      ['an unterminated block', '---\nname: a\ndescription: b\n'],
      ['invalid YAML', doc('name: [a\ndescription: b')],
      ['a duplicate key', doc('name: a\nname: a\ndescription: b')],
      ['a list instead of a mapping', doc('- name\n- description')],
    ])('fails on %s', (_label, text) => expectRule('a', text, 'skill-front-matter'));
  });

  describe('skill-name', () => {
    it.each([['a'], ['pdf-2'], ['x'.repeat(64)]])('passes for %s', (name) => {
      expect(validateSkillDocument(name, doc(`name: ${name}\ndescription: d`), '/skills/0/path').name).toBe(name);
    });
    it.each([['Pdf'], ['pdf--tools'], ['-pdf'], ['pdf-'], ['pdf_tools'], ['x'.repeat(65)], ['caf\u00e9']])('fails for %s', (name) => {
      expectRule(name, doc(`name: "${name}"\ndescription: d`), 'skill-name');
    });
    it('fails when the name is missing or not a scalar', () => {
      expectRule('a', doc('description: d'), 'skill-name');
      expectRule('a', doc('name: [a]\ndescription: d'), 'skill-name');
    });
    // (This assertion changed: 123 used to be refused as "not a string"): every
    // Agent Skills reader takes the name as written, so `name: 123` is the string "123".
    it('reads a YAML name like 123 as the string it is', () => {
      expect(validateSkillDocument('123', doc('name: 123\ndescription: d'), '/skills/0/path').name).toBe('123');
      expect(validateSkillDocument('a', doc('name: a\ndescription: 42'), '/skills/0/path').description).toBe('42');
    });
  });

  describe('skill-name-matches-dir', () => {
    it('passes when the name equals the directory', () => {
      expect(() => validateSkillDocument('alpha', doc('name: alpha\ndescription: d'), '/skills/0/path')).not.toThrow();
    });
    it('fails when they differ', () => expectRule('alpha', doc('name: beta\ndescription: d'), 'skill-name-matches-dir'));
  });

  describe('skill-description', () => {
    it('passes at 1024 characters (counted as characters, not UTF-16 units)', () => {
      expect(() => validateSkillDocument('a', doc(`name: a\ndescription: ${'x'.repeat(1024)}`), '/skills/0/path')).not.toThrow();
      expect(() => validateSkillDocument('a', doc(`name: a\ndescription: "${'\u{1F600}'.repeat(1024)}"`), '/skills/0/path')).not.toThrow();
    });
    it.each([
      ['missing', doc('name: a')],
      ['empty', doc('name: a\ndescription: ""')],
      ['not a string', doc('name: a\ndescription: [x]')],
      ['over 1024 characters', doc(`name: a\ndescription: ${'x'.repeat(1025)}`)],
    ])('fails when %s', (_label, text) => expectRule('a', text, 'skill-description'));
  });

  it('is not fooled by YAML alias expansion', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      // b: &b [*a, *a, ... ten times], c: &c [*b, ...], and so on: each level multiplies by ten.
      ...Array.from({ length: 9 }, (_, i) => {
        const name = String.fromCharCode(98 + i);
        const previous = String.fromCharCode(97 + i);
        return `${name}: &${name} [${Array.from({ length: 10 }, () => `*${previous}`).join(', ')}]`;
      }),
    ];
    expectRule('a', doc(`${bomb.join('\n')}\nname: a\ndescription: d`), 'skill-front-matter');
  });

  describe('skill-license', () => {
    it('passes with a license name', () =>
      expect(() => validateSkillDocument('a', doc('name: a\ndescription: d\nlicense: Apache-2.0'), '/skills/0/path')).not.toThrow());
    it('fails when it is not text', () => expectRule('a', doc('name: a\ndescription: d\nlicense: [MIT]'), 'skill-license'));
  });

  describe('skill-compatibility (Agent Skills: at most 500 characters)', () => {
    it('passes at 500 characters', () =>
      expect(() =>
        validateSkillDocument('a', doc(`name: a\ndescription: d\ncompatibility: ${'c'.repeat(500)}`), '/skills/0/path'),
      ).not.toThrow());
    it.each([
      ['over 500 characters', `compatibility: ${'c'.repeat(501)}`],
      ['empty', 'compatibility: ""'],
      ['a map', 'compatibility:\n  os: linux'],
    ])('fails when %s', (_label, line) => expectRule('a', doc(`name: a\ndescription: d\n${line}`), 'skill-compatibility'));
  });

  describe('skill-metadata (Agent Skills: a map of strings to strings)', () => {
    it('passes with scalar values, read as strings', () =>
      expect(() =>
        validateSkillDocument('a', doc('name: a\ndescription: d\nmetadata:\n  author: acme\n  version: 2\n  beta: true'), '/skills/0/path'),
      ).not.toThrow());
    it.each([
      ['a list', 'metadata: [a, b]'],
      ['a string', 'metadata: author'],
      ['a nested map', 'metadata:\n  author:\n    name: acme'],
      ['a list value', 'metadata:\n  tags: [a, b]'],
    ])('fails when it is %s', (_label, line) => expectRule('a', doc(`name: a\ndescription: d\n${line}`), 'skill-metadata'));
  });

  describe('skill-allowed-tools (Agent Skills: a string)', () => {
    it('passes with space-separated names', () =>
      expect(() =>
        validateSkillDocument('a', doc('name: a\ndescription: d\nallowed-tools: Bash(git:*) Read'), '/skills/0/path'),
      ).not.toThrow());
    it('fails when it is a list', () =>
      expectRule('a', doc('name: a\ndescription: d\nallowed-tools: [Bash, Read]'), 'skill-allowed-tools'));
  });

  it('counts YAML error lines from the first line of SKILL.md (the front matter starts on line 2)', () => {
    const error = captureAdcapError(() => validateSkillDocument('a', '---\nname: a\ndescription: [b\nlicense: x\n---\n', '/skills/0/path'));
    // The unclosed flow sequence is reported where the parser gives up: line 4 of the file, not line 3 of the front matter.
    expect(error.message).toMatch(/not valid YAML at line 4, column \d+ of the file/);
  });

  it('lists every problem of a document at once (for multi-error reports)', () => {
    const problems = skillDocumentProblems(
      'alpha',
      doc(`name: beta\ndescription: ${'x'.repeat(1025)}\ncompatibility: ${'c'.repeat(501)}`),
      '/skills/2/path',
    );
    expect(problems.map((p) => p.details['rule'])).toEqual(['skill-name-matches-dir', 'skill-description', 'skill-compatibility']);
    expect(problems.every((p) => p.code === 'E_SEMANTIC')).toBe(true);
    expect(skillDocumentProblems('a', doc('name: a\ndescription: d'), '/skills/0/path')).toEqual([]);
  });
});

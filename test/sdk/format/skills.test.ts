/** spec §3.1: SKILL.md front matter rules, one block per rule. */
import { describe, expect, it } from 'vitest';
import { extractFrontMatter, SKILL_RULES, validateSkillDocument } from '../../../sdk/src/format/skills.js';
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
    expect([...SKILL_RULES].sort()).toEqual(['skill-description', 'skill-front-matter', 'skill-name', 'skill-name-matches-dir']);
  });

  it('returns name and description of a valid SKILL.md', () => {
    expect(validateSkillDocument('pdf-tools', doc('name: pdf-tools\ndescription: Work with PDF files.'), '/skills/0/path')).toEqual({
      name: 'pdf-tools',
      description: 'Work with PDF files.',
    });
  });

  it('parses real YAML: quoting, block scalars, CRLF, extra keys, a BOM', () => {
    const text = '\ufeff---\r\nname: "pdf"\r\ndescription: >-\r\n  Folded\r\n  text.\r\nlicense: MIT\r\nmetadata:\r\n  version: 2\r\n---\r\nbody\r\n';
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
    it('fails when the name is missing or not a string', () => {
      expectRule('a', doc('description: d'), 'skill-name');
      expectRule('123', doc('name: 123\ndescription: d'), 'skill-name');
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
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)];
    expectRule('a', doc(`${bomb.join('\n')}\nname: a\ndescription: d`), 'skill-front-matter');
  });
});

import { parse as parseYaml } from 'yaml';
import { AdcapError } from '../errors.js';

/** The skill rules of spec §3.1, checked by builders on each skills[].path/SKILL.md. */
export const SKILL_RULES = ['skill-front-matter', 'skill-name', 'skill-name-matches-dir', 'skill-description'] as const;
export type SkillRule = (typeof SKILL_RULES)[number];

export interface SkillFrontMatter {
  name: string;
  description: string;
}

/** spec §3.1: lowercase letters, digits and single hyphens, at most 64 characters. */
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;

function fail(rule: SkillRule, pointer: string, problem: string): never {
  throw new AdcapError('E_SEMANTIC', `[${rule}] ${pointer || '/'} ${problem}.`, { details: { rule, pointer } });
}

/**
 * Extracts the YAML front matter of a SKILL.md: the text between a leading `---` line and the next
 * `---` line. Returns undefined when the document does not start with front matter.
 */
export function extractFrontMatter(skillMd: string): string | undefined {
  const text = skillMd.startsWith('\ufeff') ? skillMd.slice(1) : skillMd;
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return undefined;
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  return end < 0 ? undefined : lines.slice(1, end).join('\n');
}

/**
 * Checks a skill directory's SKILL.md (spec §3.1): YAML front matter with `name` (lowercase
 * letters, digits, single hyphens, ≤ 64 characters, equal to the directory name) and `description`
 * (present, ≤ 1024 characters). `dirName` is the last segment of skills[].path; `pointer` names the
 * skill in messages (e.g. "/skills/0/path"). Throws E_SEMANTIC naming the rule.
 */
export function validateSkillDocument(dirName: string, skillMd: string, pointer: string): SkillFrontMatter {
  const source = extractFrontMatter(skillMd);
  if (source === undefined) {
    fail('skill-front-matter', pointer, 'has a SKILL.md that does not start with YAML front matter between two "---" lines holding name and description');
  }
  let data: unknown;
  try {
    // Aliases are capped so a hostile document cannot expand into a huge value.
    data = parseYaml(source, { maxAliasCount: 50, uniqueKeys: true });
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    throw new AdcapError('E_SEMANTIC', `[skill-front-matter] ${pointer || '/'} has a SKILL.md whose front matter is not valid YAML: ${detail}.`, {
      cause,
      details: { rule: 'skill-front-matter', pointer },
    });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    fail('skill-front-matter', pointer, 'has a SKILL.md whose front matter is not a set of "key: value" lines with name and description');
  }
  const record = data as Record<string, unknown>;
  const name = record.name;
  if (typeof name !== 'string' || name.length === 0) {
    fail('skill-name', pointer, 'has a SKILL.md without a name in its front matter; add "name: <directory name>"');
  }
  if ([...name].length > MAX_NAME || !SKILL_NAME.test(name)) {
    fail('skill-name', pointer, `has the skill name ${JSON.stringify(name)}; use at most ${MAX_NAME} lowercase letters, digits and single hyphens`);
  }
  if (name !== dirName) {
    fail('skill-name-matches-dir', pointer, `has the skill name ${JSON.stringify(name)} in a directory named ${JSON.stringify(dirName)}; the two must be equal`);
  }
  const description = record.description;
  if (typeof description !== 'string' || description.trim().length === 0) {
    fail('skill-description', pointer, 'has a SKILL.md without a description in its front matter; say in one or two sentences what the skill does and when to use it');
  }
  const length = [...description].length;
  if (length > MAX_DESCRIPTION) {
    fail('skill-description', pointer, `has a skill description of ${length} characters; shorten it to at most ${MAX_DESCRIPTION}`);
  }
  return { name, description };
}

/** One problem of one SKILL.md, for a build report that lists them all (issue 13). */
export interface SkillDocumentProblem {
  /** A rule of SKILL_RULES, or a rule another check names (e.g. "skill-md"). */
  rule: string;
  /** What is wrong, as a sentence. */
  message: string;
  /** What to do about it, as a sentence. */
  fix: string;
}

/**
 * Every spec §3.1 problem of one SKILL.md, not only the first: the build report lists them all in
 * one run (issue 13: "every problem of every skill in one run, with path, rule and the fix").
 * `dirName` is the skill directory's name. Whatever else `validateSkillDocument` refuses (rules
 * added there later) is reported too, so the two never disagree on whether a skill is valid.
 */
export function skillDocumentProblems(dirName: string, skillMd: string): SkillDocumentProblem[] {
  let refusal: unknown;
  try {
    validateSkillDocument(dirName, skillMd, '');
    return [];
  } catch (error) {
    refusal = error;
  }
  const problems: SkillDocumentProblem[] = [];
  const add = (rule: string, message: string, fix: string): void => void problems.push({ rule, message, fix });
  const quoted = JSON.stringify;
  const source = extractFrontMatter(skillMd);
  const dirValid = SKILL_NAME.test(dirName) && [...dirName].length <= MAX_NAME;
  if (source === undefined) {
    add(
      'skill-front-matter',
      'SKILL.md does not start with YAML front matter between two "---" lines',
      `start SKILL.md with "---", then "name: ${dirValid ? dirName : '<folder name>'}" and "description: <what it does and when to use it>", then "---"`,
    );
  } else {
    let data: unknown;
    let parsed = true;
    try {
      data = parseYaml(source, { maxAliasCount: 50, uniqueKeys: true });
    } catch (cause) {
      parsed = false;
      const detail = cause instanceof Error ? (cause.message.split('\n')[0] ?? '') : String(cause);
      add('skill-front-matter', `the front matter is not valid YAML (${detail})`, 'correct the YAML between the two "---" lines (quote values that contain ": " or start with a special character)');
    }
    if (parsed && (typeof data !== 'object' || data === null || Array.isArray(data))) {
      add('skill-front-matter', 'the front matter is not a set of "key: value" lines', 'write the front matter as "name: ..." and "description: ..." lines');
    } else if (parsed) {
      const record = data as Record<string, unknown>;
      const name = record.name;
      if (typeof name !== 'string' || name.length === 0) {
        add('skill-name', 'the front matter has no name', `add "name: ${dirValid ? dirName : '<folder name>'}" to the front matter`);
      } else {
        const nameValid = [...name].length <= MAX_NAME && SKILL_NAME.test(name);
        if (!nameValid) {
          add('skill-name', `the name ${quoted(name)} is not lowercase letters, digits and single hyphens of at most ${MAX_NAME} characters`, `change the name to ${quoted(dirValid ? dirName : suggestName(name))}`);
        }
        if (name !== dirName) {
          const fix = nameValid && dirValid
            ? `rename the folder to ${name} or the name to ${dirName}`
            : nameValid
              ? `rename the folder to ${name}`
              : dirValid
                ? `change the name to ${dirName}`
                : `rename the folder and the name to ${quoted(suggestName(name))}`;
          add('skill-name-matches-dir', `the name ${quoted(name)} differs from the folder name ${quoted(dirName)}`, fix);
        }
      }
      const description = record.description;
      if (typeof description !== 'string' || description.trim().length === 0) {
        add('skill-description', 'the front matter has no description', 'add "description: <what the skill does and when to use it>" in one or two sentences');
      } else if ([...description].length > MAX_DESCRIPTION) {
        add('skill-description', `the description has ${[...description].length} characters`, `shorten the description to at most ${MAX_DESCRIPTION} characters`);
      }
    }
  }
  // A rule the validator knows beyond the ones above (it stops at its first problem).
  const rule = refusal instanceof AdcapError && typeof refusal.details.rule === 'string' ? refusal.details.rule : 'skill-front-matter';
  if (!problems.some((p) => p.rule === rule)) {
    add(rule, refusal instanceof Error ? refusal.message.replace(/^\[[^\]]*\]\s*\/\s*/, '') : String(refusal), 'correct SKILL.md as the message says');
  }
  return problems;
}

/** A valid skill name close to `text` (lowercase, hyphens), for a suggested fix. */
function suggestName(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_NAME)
    .replace(/-+$/, '');
  return slug === '' ? 'my-skill' : slug;
}

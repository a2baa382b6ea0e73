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
/** C0 and C1 control characters and DEL, except tab and newline. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_EXCEPT_NEWLINE_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

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
  // Issue 11, item 2: text shown to people carries no terminal control sequences (newline and tab only).
  if (CONTROL_EXCEPT_NEWLINE_TAB.test(description)) {
    fail('skill-description', pointer, 'has a skill description with a control character; only newlines and tabs are allowed');
  }
  const length = [...description].length;
  if (length > MAX_DESCRIPTION) {
    fail('skill-description', pointer, `has a skill description of ${length} characters; shorten it to at most ${MAX_DESCRIPTION}`);
  }
  return { name, description };
}

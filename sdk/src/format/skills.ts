import { parse as parseYaml } from 'yaml';
import { AdcapError } from '../errors.js';
import { ID_PART_PATTERN, toIdPart } from '../util/capability-id.js';

/**
 * The skill rules of spec §3.1 and the Agent Skills specification (agentskills.io), checked on each
 * skills[].path/SKILL.md by builders, `verify` and install.
 */
export const SKILL_RULES = [
  'skill-front-matter',
  'skill-name',
  'skill-name-matches-dir',
  'skill-description',
  'skill-license',
  'skill-compatibility',
  'skill-metadata',
  'skill-allowed-tools',
] as const;
type SkillRule = (typeof SKILL_RULES)[number];

/** The front matter of a SKILL.md (Agent Skills): name, description and the optional fields. */
export interface SkillFrontMatter {
  /** The skill's name (lowercase letters, digits and hyphens, as its folder is named). */
  name: string;
  /** What the skill does and when an agent should use it. */
  description: string;
}

/** spec §3.1: lowercase letters, digits and single hyphens, at most 64 characters. */
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
/** Agent Skills specification: `compatibility` is at most 500 characters. */
const MAX_COMPATIBILITY = 500;
/**
 * C0 and C1 control characters and DEL, except tab and newline, and the bidirectional controls
 * (U+061C, U+200E/F, U+202A-E, U+2066-9) that reorder what a person reads (Trojan Source).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_EXCEPT_NEWLINE_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function problem(rule: SkillRule, pointer: string, text: string): AdcapError {
  return new AdcapError('E_SEMANTIC', `[${rule}] ${pointer || '/'} ${text}.`, { details: { rule, pointer } });
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
 * Checks a skill directory's SKILL.md (spec §3.1, Agent Skills specification): YAML front matter
 * with `name` (lowercase letters, digits, single hyphens, ≤ 64 characters, equal to the directory
 * name) and `description` (present, ≤ 1024 characters); optional `license` (a string),
 * `compatibility` (1-500 characters), `metadata` (a map of strings to strings) and `allowed-tools`
 * (a string). Scalars are read as the strings they are written as (YAML failsafe schema), so a
 * name `123` is the string "123", as for every Agent Skills reader. `dirName` is the last segment of
 * skills[].path; `pointer` names the skill in messages (e.g. "/skills/0/path"). Throws the first
 * problem (E_SEMANTIC naming the rule); skillDocumentProblems() returns them all.
 */
export function validateSkillDocument(dirName: string, skillMd: string, pointer: string): SkillFrontMatter {
  const checked = checkSkillDocument(dirName, skillMd, pointer);
  const first = checked.problems[0];
  if (first !== undefined) throw first;
  return checked.frontMatter as SkillFrontMatter;
}

/** Every problem of a SKILL.md (an empty list when it is valid), each an E_SEMANTIC AdcapError naming its rule. */
export function skillDocumentProblems(dirName: string, skillMd: string, pointer: string): AdcapError[] {
  return checkSkillDocument(dirName, skillMd, pointer).problems;
}

function checkSkillDocument(dirName: string, skillMd: string, pointer: string): { problems: AdcapError[]; frontMatter?: SkillFrontMatter } {
  const source = extractFrontMatter(skillMd);
  if (source === undefined) {
    return {
      problems: [
        problem(
          'skill-front-matter',
          pointer,
          'has a SKILL.md that does not start with YAML front matter between two "---" lines holding name and description',
        ),
      ],
    };
  }
  let data: unknown;
  try {
    // Failsafe: every scalar is a string, as the Agent Skills specification reads them. Aliases
    // are capped so a hostile document cannot expand into a huge value.
    data = parseYaml(source, { schema: 'failsafe', maxAliasCount: 50, uniqueKeys: true });
  } catch (cause) {
    return { problems: [yamlProblem(cause, pointer)] };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return {
      problems: [
        problem(
          'skill-front-matter',
          pointer,
          'has a SKILL.md whose front matter is not a set of "key: value" lines with name and description',
        ),
      ],
    };
  }
  const record = data as Record<string, unknown>;
  const problems: AdcapError[] = [];
  const name = record.name;
  if (typeof name !== 'string' || name.length === 0) {
    problems.push(problem('skill-name', pointer, 'has a SKILL.md without a name in its front matter; add "name: <directory name>"'));
  } else if ([...name].length > MAX_NAME || !ID_PART_PATTERN.test(name)) {
    problems.push(
      problem(
        'skill-name',
        pointer,
        `has the skill name ${JSON.stringify(name)}; use at most ${MAX_NAME} lowercase letters, digits and single hyphens`,
      ),
    );
  } else if (name !== dirName) {
    problems.push(
      problem(
        'skill-name-matches-dir',
        pointer,
        `has the skill name ${JSON.stringify(name)} in a directory named ${JSON.stringify(dirName)}; the two must be equal`,
      ),
    );
  }
  const description = record.description;
  if (typeof description !== 'string' || description.trim().length === 0) {
    problems.push(
      problem(
        'skill-description',
        pointer,
        'has a SKILL.md without a description in its front matter; say in one or two sentences what the skill does and when to use it',
      ),
    );
  } else if ([...description].length > MAX_DESCRIPTION) {
    problems.push(
      problem(
        'skill-description',
        pointer,
        `has a skill description of ${[...description].length} characters; shorten it to at most ${MAX_DESCRIPTION}`,
      ),
    );
  } else if (CONTROL_EXCEPT_NEWLINE_TAB.test(description)) {
    // Text shown to people carries no terminal control sequences (newline and tab only).
    problems.push(
      problem(
        'skill-description',
        pointer,
        'has a skill description with a control or bidirectional formatting character; only newlines and tabs are allowed',
      ),
    );
  }
  const license = record.license;
  if (license !== undefined && (typeof license !== 'string' || license.trim() === '')) {
    problems.push(
      problem('skill-license', pointer, 'has a "license" that is not a license name or file name; write it as one line of text'),
    );
  }
  const compatibility = record.compatibility;
  if (compatibility !== undefined) {
    if (typeof compatibility !== 'string' || compatibility.trim() === '') {
      problems.push(
        problem(
          'skill-compatibility',
          pointer,
          'has a "compatibility" that is not text; say in words what the skill needs (at most 500 characters)',
        ),
      );
    } else if ([...compatibility].length > MAX_COMPATIBILITY) {
      problems.push(
        problem(
          'skill-compatibility',
          pointer,
          `has a "compatibility" of ${[...compatibility].length} characters; shorten it to at most ${MAX_COMPATIBILITY}`,
        ),
      );
    }
  }
  const metadata = record.metadata;
  if (metadata !== undefined) {
    const isMap = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata);
    const bad = isMap ? Object.entries(metadata as Record<string, unknown>).find(([, value]) => typeof value !== 'string') : undefined;
    if (!isMap) problems.push(problem('skill-metadata', pointer, 'has a "metadata" that is not a map of keys to text values'));
    else if (bad !== undefined)
      problems.push(
        problem(
          'skill-metadata',
          pointer,
          `has a "metadata" entry ${JSON.stringify(bad[0])} whose value is not text; metadata maps keys to strings`,
        ),
      );
  }
  const allowedTools = record['allowed-tools'];
  if (allowedTools !== undefined && typeof allowedTools !== 'string') {
    problems.push(
      problem('skill-allowed-tools', pointer, 'has an "allowed-tools" that is not a string; list the tool names separated by spaces'),
    );
  }
  if (problems.length > 0) return { problems };
  return { problems, frontMatter: { name: name as string, description: description as string } };
}

/** A YAML error, its line counted from the SKILL.md's first line (the front matter starts on line 2). */
function yamlProblem(cause: unknown, pointer: string): AdcapError {
  const raw = cause instanceof Error ? (cause.message.split('\n')[0] ?? '') : String(cause);
  const position = (cause as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
  const detail = raw.replace(/ at line \d+, column \d+:?$/, '');
  const where = position === undefined ? '' : ` at line ${position.line + 1}, column ${position.col} of the file`;
  return new AdcapError(
    'E_SEMANTIC',
    `[skill-front-matter] ${pointer || '/'} has a SKILL.md whose front matter is not valid YAML${where}: ${detail}.`,
    {
      cause,
      details: { rule: 'skill-front-matter', pointer },
    },
  );
}

/** One problem of one SKILL.md with the fix to print beside it (the build report). */
export interface SkillProblemFix {
  /** The rule the problem breaks (SKILL_RULES, or "skill-md" for a missing file). */
  rule: string;
  /** What is wrong: the validator's sentence without its "[rule] pointer" prefix. */
  message: string;
  /** What to do about it, naming the names involved where there are some. */
  fix: string;
}

/**
 * Every spec §3.1 problem of one SKILL.md (skillDocumentProblems) with a fix for each:
 * "every problem of every skill in one run, with path, rule and the fix ('rename the folder to
 * vercel-composition-patterns or the name to composition-patterns')". An empty list when valid.
 */
export function skillProblemFixes(dirName: string, skillMd: string): SkillProblemFix[] {
  const problems = skillDocumentProblems(dirName, skillMd, '');
  if (problems.length === 0) return [];
  const name = frontMatterName(skillMd);
  const dirValid = isSkillName(dirName);
  const nameValid = name !== undefined && isSkillName(name);
  return problems.map((error) => {
    const rule = typeof error.details.rule === 'string' ? error.details.rule : 'skill-front-matter';
    const message = error.message.replace(/^\[[^\]]*\]\s*\/\s*/, '').replace(/\.$/, '');
    return { rule, message, fix: fixFor(rule, message, { dirName, dirValid, name, nameValid }) };
  });
}

function isSkillName(text: string): boolean {
  return [...text].length <= MAX_NAME && ID_PART_PATTERN.test(text);
}

/** The front matter's name as written (failsafe: a string), for naming it in a fix or a staged folder. */
export function frontMatterName(skillMd: string): string | undefined {
  const source = extractFrontMatter(skillMd);
  if (source === undefined) return undefined;
  try {
    const data: unknown = parseYaml(source, { schema: 'failsafe', maxAliasCount: 50 });
    const name = (data as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}

function fixFor(
  rule: string,
  message: string,
  n: { dirName: string; dirValid: boolean; name: string | undefined; nameValid: boolean },
): string {
  const folderName = n.dirValid ? n.dirName : '<folder name>';
  switch (rule) {
    case 'skill-front-matter':
      return /not valid YAML/.test(message)
        ? 'correct the YAML between the two "---" lines (quote values that contain ": " or start with a special character)'
        : `start SKILL.md with "---", then "name: ${folderName}" and "description: <what it does and when to use it>", then "---"`;
    case 'skill-name':
      if (n.name === undefined) return `add "name: ${folderName}" to the front matter`;
      if (n.dirValid) return `change the name to ${n.dirName}`;
      return `rename the folder and the name to ${JSON.stringify(suggestName(n.name))}`;
    case 'skill-name-matches-dir':
      if (n.nameValid && n.dirValid) return `rename the folder to ${n.name ?? ''} or the name to ${n.dirName}`;
      return n.nameValid ? `rename the folder to ${n.name ?? ''}` : `change the name to ${n.dirName}`;
    case 'skill-description':
      return /characters/.test(message)
        ? `shorten the description to at most ${MAX_DESCRIPTION} characters`
        : 'add "description: <what the skill does and when to use it>" in one or two sentences';
    case 'skill-compatibility':
      return 'write "compatibility" as text of at most 500 characters, or remove it';
    case 'skill-metadata':
      return 'write "metadata" as "key: text" lines indented under it, or remove it';
    case 'skill-allowed-tools':
      return 'write "allowed-tools" as one line of tool names separated by spaces';
    case 'skill-license':
      return 'write "license" as one line (a license name or a file name), or remove it';
    default:
      return 'correct SKILL.md as the message says';
  }
}

/** A valid skill name close to `text` (lowercase, hyphens), for a suggested fix. */
function suggestName(text: string): string {
  return toIdPart(text, 'my-skill');
}

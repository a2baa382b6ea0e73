import { describe, expect, it } from 'vitest';
import { isAdcapError } from '../../../sdk/src/errors.js';
import { validateManifest } from '../../../sdk/src/format/manifest.js';
import { parseStrictJson } from '../../../sdk/src/format/strict-json.js';
import { validateSkillDocument } from '../../../sdk/src/format/skills.js';
import { validateWorkflowDocument } from '../../../sdk/src/format/workflow-doc.js';
import { fixtureFileContents, minimalManifest, nodeTool, sha256Of } from '../../helpers/manifest-fixtures.js';

function codeOf(value: unknown): string | undefined {
  try {
    validateManifest(value);
    return undefined;
  } catch (error) {
    if (isAdcapError(error)) return error.code;
    throw error;
  }
}

describe('validateManifest', () => {
  it('accepts the minimal fixture manifest', () => {
    const m = minimalManifest();
    expect(validateManifest(m)).toBe(m);
  });

  it('accepts a fixture with a tool, skill, workflow and knowledge', () => {
    const m = minimalManifest({
      tools: [nodeTool('echo')],
      skills: [{ path: 'skills/demo' }],
      workflows: [{ path: 'workflows/main.json' }],
      knowledge: [{ id: 'notes', kind: 'markdown', path: 'knowledge/notes.md' }],
    });
    expect(validateManifest(m)).toBe(m);
  });

  it('refuses a newer major with E_VERSION_MAJOR', () => {
    expect(codeOf({ ...minimalManifest(), adcap: '2.0' })).toBe('E_VERSION_MAJOR');
  });
});

describe('manifest fixtures (test/helpers/manifest-fixtures.ts)', () => {
  it('hash the contents they hand out, and those contents pass the skill and workflow checks', () => {
    const m = minimalManifest(
      { tools: [nodeTool('echo')], skills: [{ path: 'skills/demo' }], workflows: [{ path: 'workflows/main.json' }] },
      { 'docs/extra.txt': 'extra\n' },
    );
    const contents = fixtureFileContents(m);
    expect([...contents.keys()].sort()).toEqual(m.files.map((f) => f.path).sort());
    for (const file of m.files) {
      const text = contents.get(file.path) ?? '';
      expect(sha256Of(text)).toBe(file.sha256);
      expect(Buffer.byteLength(text)).toBe(file.size);
    }
    expect(validateSkillDocument('demo', contents.get('skills/demo/SKILL.md') ?? '', '/skills/0/path').name).toBe('demo');
    const workflow = parseStrictJson(contents.get('workflows/main.json') ?? '', 'workflows/main.json');
    expect(validateWorkflowDocument(workflow, m, 'workflows/main.json#').id).toBe('main');
  });
});

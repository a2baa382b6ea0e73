import { describe, expect, it } from 'vitest';
import { isAdcapError } from '../../../sdk/src/errors.js';
import { validateManifest } from '../../../sdk/src/format/manifest.js';
import { minimalManifest, nodeTool } from '../../helpers/manifest-fixtures.js';

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

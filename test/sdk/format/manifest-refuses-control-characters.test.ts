// Consent spoofing: a permission reason holding "\r" and ANSI erase sequences
// erased two permission lines from the terminal prompt. Display strings of the format (name,
// summary, description, reasons, tool, knowledge and workflow descriptions, skill descriptions)
// now refuse C0/C1 control characters (newline and tab only where the text may be Markdown), with
// E_SCHEMA naming the field, in the format layer: build, verify and install all refuse.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArchive } from '../../../sdk/src/format/archive/writer.js';
import { validateManifest } from '../../../sdk/src/format/manifest.js';
import type { Manifest } from '../../../sdk/src/format/manifest-types.js';
import { buildPackage } from '../../../sdk/src/format/package-build.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { validateSkillDocument } from '../../../sdk/src/format/skills.js';
import { validateWorkflowDocument } from '../../../sdk/src/format/workflow-doc.js';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { captureAdcapError, minimalManifest, nodeTool } from '../../helpers/manifest-fixtures.js';
import { rejection } from '../../helpers/errors.js';

/** The proof of concept: return to the line start, erase it, go up and erase the line above. */
const SPOOF = 'Reads your files.\r\u001b[2K\u001b[1A\u001b[2K';
const permission = (reason: string) => ({ id: 'net:connect' as const, reason });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-control-chars-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('manifest display strings refuse control characters', () => {
  const cases: Array<[string, () => Manifest, string]> = [
    [
      'a permission reason with \\r and ANSI erase sequences',
      () => minimalManifest({ permissions: [permission(SPOOF)] }),
      '/permissions/0/reason',
    ],
    [
      'a reason with a newline (reasons are one line)',
      () => minimalManifest({ permissions: [permission('line one\nline two')] }),
      '/permissions/0/reason',
    ],
    ['the name with an OSC 52 clipboard write', () => minimalManifest({ name: 'Demo\u001b]52;c;cm0gLXJmIH4=\u0007' }), '/name'],
    ['the summary with a C1 CSI (U+009B)', () => minimalManifest({ summary: 'Safe \u009b2K' }), '/summary'],
    ['the description with a carriage return', () => minimalManifest({ description: 'Markdown\r\nwith CRLF' }), '/description'],
    [
      'a tool description with a backspace',
      () => minimalManifest({ tools: [nodeTool('echo', { description: 'Echo\u0008\u0008\u0008' })] }),
      '/tools/0/description',
    ],
    [
      'a knowledge description with DEL',
      () =>
        minimalManifest(
          { knowledge: [{ id: 'k', kind: 'markdown', path: 'knowledge/k.md', description: 'x\u007f' }] },
          { 'knowledge/k.md': '# k\n' },
        ),
      '/knowledge/0/description',
    ],
    ['a keyword with an escape', () => minimalManifest({ keywords: ['ok', '\u001b[31mred'] }), '/keywords/1'],
  ];
  it.each(cases)('%s is E_SCHEMA naming the field', (_what, manifest, pointer) => {
    const error = captureAdcapError(() => validateManifest(manifest()));
    expect(error.code).toBe('E_SCHEMA');
    expect(error.details.pointer).toBe(pointer);
    expect(error.message).toContain(`${pointer} must be`);
    expect(error.message).toContain('control characters');
  });

  it('Markdown text keeps newlines and tabs', () => {
    expect(() =>
      validateManifest(
        minimalManifest({ description: '# Title\n\n\tcode\n- item', tools: [nodeTool('echo', { description: 'Line one\nLine two' })] }),
      ),
    ).not.toThrow();
  });

  it('workflow names, descriptions and agent instructions, and skill descriptions, refuse them too', () => {
    const flow = { 'adcap-workflow': '1.0', id: 'w', steps: [{ id: 'a', agent: 'Say hi' }] };
    const validateWorkflow = (doc: unknown) => validateWorkflowDocument(doc, minimalManifest(), '');
    expect(captureAdcapError(() => validateWorkflow({ ...flow, description: SPOOF }))).toMatchObject({
      code: 'E_SCHEMA',
      details: { pointer: '/description' },
    });
    expect(captureAdcapError(() => validateWorkflow({ ...flow, steps: [{ id: 'a', agent: 'Run\u001b]52;c;eA==\u0007' }] }))).toMatchObject({
      code: 'E_SCHEMA',
      details: { pointer: '/steps/0/agent' },
    });
    expect(() => validateWorkflow({ ...flow, description: 'two\nlines' })).not.toThrow();
    const skill = (description: string) => `---\nname: s\ndescription: "${description}"\n---\n# S\n`;
    expect(captureAdcapError(() => validateSkillDocument('s', skill('Use me\\r\\u001b[2K'), '/skills/0'))).toMatchObject({
      code: 'E_SEMANTIC',
      details: { rule: 'skill-description' },
    });
    expect(validateSkillDocument('s', skill('Use me when\\nasked'), '/skills/0').description).toBe('Use me when\nasked');
  });

  it('build, verify (read) and install all refuse the spoofing reason', async () => {
    const manifest = minimalManifest({ permissions: [permission(SPOOF)] });
    // build: from a source directory.
    const src = join(dir, 'src');
    await mkdir(src, { recursive: true });
    const { files: _files, ...withoutFiles } = manifest;
    await writeFile(join(src, 'capability.json'), JSON.stringify(withoutFiles));
    for (const f of manifest.files) {
      await mkdir(join(src, f.path, '..'), { recursive: true });
      await writeFile(join(src, f.path), 'content');
    }
    expect(await rejection(buildPackage(src, { out: join(dir, 'out.adcap') }))).toMatchObject({
      code: 'E_SCHEMA',
      details: { pointer: '/permissions/0/reason' },
    });

    // verify: an archive written by hand, past every builder check.
    const bytes = Buffer.from(JSON.stringify({ ...manifest, files: [] }));
    const file = join(dir, 'hostile.adcap');
    await writeArchive([{ path: 'capability.json', size: bytes.length, executable: false, open: () => bytes }], file);
    expect(await rejection(readPackage(file))).toMatchObject({ code: 'E_SCHEMA', details: { pointer: '/permissions/0/reason' } });

    // install: the same file, sideloaded.
    const arc = new Arcotheon({ home: join(dir, 'home'), host: { agent: { id: 'test', version: '1.0.0' } } });
    expect(await rejection(arc.install({ file }, { approve: () => true, allowUnsigned: true }))).toMatchObject({ code: 'E_SCHEMA' });
    expect(await arc.list()).toEqual([]);
  });
});

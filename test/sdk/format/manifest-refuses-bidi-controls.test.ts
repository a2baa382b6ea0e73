// Trojan Source in display text (CVE-2021-42574; SECURITY.md "Bidirectional controls"): a name such as
// "Invoice viewer \u202Efdp.exe" shows as "Invoice viewer exe.pdf", and a reason ending in U+2067
// reorders the words of the permission line that follows it. Display strings of the format refuse
// the bidirectional controls as they refuse other control characters: build, verify and install.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArchive } from '../../../sdk/src/format/archive/writer.js';
import { validateManifest } from '../../../sdk/src/format/manifest.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { validateSkillDocument } from '../../../sdk/src/format/skills.js';
import { validateWorkflowDocument } from '../../../sdk/src/format/workflow-doc.js';
import { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { rejection } from '../../helpers/errors.js';
import { captureAdcapError, minimalManifest, nodeTool } from '../../helpers/manifest-fixtures.js';

const BIDI_CONTROLS = [
  '\u061c', // ARABIC LETTER MARK
  '\u200e', // LEFT-TO-RIGHT MARK
  '\u200f', // RIGHT-TO-LEFT MARK
  '\u202a', // LEFT-TO-RIGHT EMBEDDING
  '\u202b', // RIGHT-TO-LEFT EMBEDDING
  '\u202c', // POP DIRECTIONAL FORMATTING
  '\u202d', // LEFT-TO-RIGHT OVERRIDE
  '\u202e', // RIGHT-TO-LEFT OVERRIDE
  '\u2066', // LEFT-TO-RIGHT ISOLATE
  '\u2067', // RIGHT-TO-LEFT ISOLATE
  '\u2068', // FIRST STRONG ISOLATE
  '\u2069', // POP DIRECTIONAL ISOLATE
];
const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adcap-bidi-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('manifest display strings refuse bidirectional controls (E_SCHEMA naming the field)', () => {
  it.each(BIDI_CONTROLS.map((c) => [hex(c), c]))('%s in the name', (_name, c) => {
    const error = captureAdcapError(() => validateManifest(minimalManifest({ name: `Invoice viewer ${c}fdp.exe` })));
    expect(error).toMatchObject({ code: 'E_SCHEMA', details: { pointer: '/name' } });
    expect(error.message).toContain('bidirectional controls');
  });
  const fields: Array<[string, (c: string) => unknown, string]> = [
    ['the summary', (c) => minimalManifest({ summary: `Reads ${c}nothing` }), '/summary'],
    ['the description (Markdown)', (c) => minimalManifest({ description: `# Hi\n\n${c}text` }), '/description'],
    [
      'a permission reason',
      (c) => minimalManifest({ permissions: [{ id: 'net:connect', reason: `Only api.example${c}` }] }),
      '/permissions/0/reason',
    ],
    ['a tool description', (c) => minimalManifest({ tools: [nodeTool('echo', { description: `Echo ${c}` })] }), '/tools/0/description'],
    ['a keyword', (c) => minimalManifest({ keywords: [`pdf${c}`] }), '/keywords/0'],
  ];
  it.each(fields)('%s', (_what, manifest, pointer) => {
    for (const c of ['\u202e', '\u2067', '\u200f']) {
      expect(
        captureAdcapError(() => validateManifest(manifest(c))),
        hex(c),
      ).toMatchObject({ code: 'E_SCHEMA', details: { pointer } });
    }
  });
  it('a control: right-to-left text itself (Arabic, Hebrew) is accepted', () => {
    expect(() => validateManifest(minimalManifest({ name: 'عارض الفواتير', summary: 'מציג חשבוניות' }))).not.toThrow();
  });
  it('workflow text and skill descriptions refuse them too', () => {
    const flow = { 'adcap-workflow': '1.0', id: 'w', steps: [{ id: 'a', agent: 'Say hi' }] };
    expect(captureAdcapError(() => validateWorkflowDocument({ ...flow, name: 'Flow\u202e' }, minimalManifest(), ''))).toMatchObject({
      code: 'E_SCHEMA',
      details: { pointer: '/name' },
    });
    expect(
      captureAdcapError(() => validateWorkflowDocument({ ...flow, steps: [{ id: 'a', agent: 'Run \u2066x' }] }, minimalManifest(), '')),
    ).toMatchObject({ code: 'E_SCHEMA', details: { pointer: '/steps/0/agent' } });
    const skill = `---\nname: s\ndescription: "Use me \\u202Eelbat"\n---\n# S\n`;
    expect(captureAdcapError(() => validateSkillDocument('s', skill, '/skills/0'))).toMatchObject({
      code: 'E_SEMANTIC',
      details: { rule: 'skill-description' },
    });
  });
  it('verify (read) and install refuse a hand-written package with a reversed name', async () => {
    const manifest = minimalManifest({ name: 'Invoice viewer \u202efdp.exe' });
    const bytes = Buffer.from(JSON.stringify({ ...manifest, files: [] }));
    const file = join(dir, 'hostile.adcap');
    await writeArchive([{ path: 'capability.json', size: bytes.length, executable: false, open: () => bytes }], file);
    expect(await rejection(readPackage(file))).toMatchObject({ code: 'E_SCHEMA', details: { pointer: '/name' } });
    const arc = new Arcotheon({ home: join(dir, 'home'), host: { agent: { id: 'test', version: '1.0.0' } } });
    expect(await rejection(arc.install({ file }, { approve: () => true, allowUnsigned: true }))).toMatchObject({ code: 'E_SCHEMA' });
    expect(await arc.list()).toEqual([]);
  });
});

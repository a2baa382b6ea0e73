import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temp directory with a small valid capability source in `src/`; call cleanup() afterwards. */
export async function capabilitySource(id = 'acme/hello'): Promise<{ root: string; src: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'adcap-sig-'));
  const src = join(root, 'src');
  const name = id.split('/')[1] ?? 'hello';
  await mkdir(join(src, 'skills', name), { recursive: true });
  await mkdir(join(src, 'tools'), { recursive: true });
  const manifest = {
    adcap: '1.0',
    id,
    version: '1.2.3',
    name: 'Hello',
    summary: 'A test capability.',
    skills: [{ path: `skills/${name}` }],
    tools: [
      {
        name: 'greet',
        description: 'Greets.',
        runtime: { type: 'node', entry: 'tools/greet.mjs' },
        inputSchema: { type: 'object' },
      },
    ],
  };
  await writeFile(join(src, 'capability.json'), JSON.stringify(manifest, null, 2));
  await writeFile(join(src, 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: Says hello.\n---\n\nSay hello.\n`);
  await writeFile(join(src, 'tools', 'greet.mjs'), 'process.stdout.write("{}\\n");\n', { mode: 0o755 });
  return { root, src, cleanup: () => rm(root, { recursive: true, force: true }) };
}

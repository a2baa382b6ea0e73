import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap as runAdcap, assertBuilt, ok, type Run } from './helpers/adcap.js';

/**
 * Running capabilities through the BUILT bin (`npm run e2e` builds it first), as real child
 * processes: a sideloaded package is built and installed into a temp home, then `adcap run`,
 * `adcap workflow` and `adcap audit verify` run its tool (in bubblewrap) and check the audit log.
 */
const ECHO = fileURLToPath(new URL('../test/fixtures/tools/echo.mjs', import.meta.url));

let work: string;

function adcap(args: string[]): Promise<Run> {
  // Not a user's run: a temporary home instead of the user's own.
  return runAdcap(args, { cwd: work, env: { ...process.env, ARCOTHEON_HOME: join(work, 'home') } });
}

beforeAll(async () => {
  await assertBuilt();
  work = await mkdtemp(join(tmpdir(), 'adcap-run-e2e-'));
  const src = join(work, 'echo-cap');
  await mkdir(join(src, 'tools'), { recursive: true });
  await mkdir(join(src, 'workflows'), { recursive: true });
  await copyFile(ECHO, join(src, 'tools', 'echo.mjs'));
  await writeFile(
    join(src, 'capability.json'),
    JSON.stringify(
      {
        adcap: '1.0',
        id: 'local/echo-cap',
        version: '1.0.0',
        name: 'Echo',
        summary: 'Echoes its input, for the run e2e.',
        compat: { agents: { arcotheon: '*' } },
        permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'Reads the folder you choose.' }],
        tools: [
          {
            name: 'echo',
            description: 'Echoes its input.',
            runtime: { type: 'node', entry: 'tools/echo.mjs' },
            inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            outputSchema: { type: 'object', required: ['echoed'] },
            permissions: ['fs:read:workspace'],
          },
        ],
        workflows: [{ path: 'workflows/ask.json' }],
      },
      null,
      2,
    ),
  );
  await writeFile(
    join(src, 'workflows', 'ask.json'),
    JSON.stringify({
      'adcap-workflow': '1.0',
      id: 'ask',
      inputs: { properties: { q: { type: 'string', default: 'why' } } },
      steps: [
        { id: 'e', tool: 'echo', input: { text: '{{inputs.q}}' } },
        { id: 'answer', agent: 'Answer: {{steps.e.output.echoed.text}}' },
      ],
    }),
  );
  await mkdir(join(work, 'ws'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('adcap run, workflow and audit verify, end to end', () => {
  it('build -> install (sideload) -> run -> workflow -> audit verify; tampering is detected', async () => {
    ok(await adcap(['build', 'echo-cap', '-o', 'echo.adcap']));
    ok(await adcap(['install', 'echo.adcap', '--yes', '--allow-unsigned']));

    const run = ok(await adcap(['run', 'local/echo-cap', 'echo', '--input', '{"text":"hello"}', '--workspace', 'ws', '--json']));
    const output = JSON.parse(run.stdout) as { echoed: unknown; context: { workspace: string; capability: string } };
    expect(output.echoed).toEqual({ text: 'hello' });
    expect(output.context).toMatchObject({ capability: 'local/echo-cap', workspace: join(work, 'ws') });

    const bad = await adcap(['run', 'local/echo-cap', 'echo', '--input', '{}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error E_INPUT: .*"text"/);

    const flow = JSON.parse(ok(await adcap(['workflow', 'local/echo-cap', 'ask', '--inputs', '{}', '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(flow).toMatchObject({ status: 'agent', stepId: 'answer', instruction: 'Answer: why' });

    const verified = JSON.parse(ok(await adcap(['audit', 'verify', '--json'])).stdout) as { ok: boolean; lines: number };
    expect(verified).toMatchObject({ ok: true, lines: 4 }); // run, refused run, workflow step, workflow

    const auditDir = join(work, 'home', 'audit');
    const file = join(auditDir, (await readdir(auditDir)).filter((f) => f.endsWith('.jsonl'))[0] as string);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    await writeFile(file, `${[lines[1], lines[0], ...lines.slice(2)].join('\n')}\n`); // reorder two lines
    const tampered = await adcap(['audit', 'verify']);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^error E_HASH: /);
  });
});

// `adcap run`, `adcap workflow` and `adcap audit verify` (DESIGN §8), in-process with captured output.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap } from '../cli/run-cli.js';
import { nodeTool, RunHome } from './run-fixture.js';

let h: RunHome;
const run = (args: string[]) => adcap([...args, '--home', h.home], { cwd: h.root, env: { PATH: process.env.PATH } });

beforeAll(async () => {
  h = await RunHome.create();
  await h.install({
    id: 'acme/cli',
    tools: [nodeTool('echo', 'echo.mjs', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } })],
    workflows: [
      {
        'adcap-workflow': '1.0',
        id: 'ask',
        steps: [
          { id: 'e', tool: 'echo', input: { text: '{{inputs.q}}' } },
          { id: 'a', agent: 'Answer {{steps.e.output.echoed.text}}' },
        ],
      },
    ],
    files: { 'tools/echo.mjs': 'echo.mjs' },
  });
});
afterAll(async () => {
  await h.remove();
});

describe('adcap run / workflow / audit verify', () => {
  it('run --json prints the output object itself; errors are one E_CODE line and exit 1', async () => {
    const ok = await run(['run', 'acme/cli', 'echo', '--input', '{"text":"hi"}', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ tool: 'echo', echoed: { text: 'hi' } });
    const bad = await run(['run', 'acme/cli', 'echo', '--input', '{"text":5}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error E_INPUT: /);
    const usage = await run(['run', 'acme/cli', 'echo', '--input', '{nope']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('E_USAGE');
  });

  it('workflow prints the agent stop with its instruction', async () => {
    const result = await run(['workflow', 'acme/cli', 'ask', '--inputs', '{"q":"why"}', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'agent', stepId: 'a', instruction: 'Answer why' });
  });

  it('audit verify passes on the log the runs wrote and fails (E_HASH, exit 1) once a line is edited', async () => {
    const ok = await run(['audit', 'verify', '--json']);
    expect(ok.code).toBe(0);
    const verified = JSON.parse(ok.stdout) as { ok: boolean; lines: number };
    expect(verified.ok).toBe(true);
    expect(verified.lines).toBeGreaterThanOrEqual(4); // 2 runs, 1 refused run, 1 tool step + 1 workflow
    const dir = join(h.home, 'audit');
    const file = join(dir, (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort()[0] as string);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"outcome":"error"', '"outcome":"ok"'));
    const tampered = await run(['audit', 'verify']);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^error E_HASH: The audit log was changed/);
  });
});

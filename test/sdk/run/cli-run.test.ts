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
      {
        'adcap-workflow': '1.0',
        id: 'answer',
        steps: [
          { id: 'a', agent: 'Say something' },
          { id: 'b', tool: 'echo', input: { text: '{{steps.a.output}}' } },
        ],
        output: { said: '{{steps.b.output.echoed.text}}' },
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

  it('workflow --resume <token> continues after the agent step with --agent-text or --agent-output (text or @file)', async () => {
    const stopped = await run(['workflow', 'acme/cli', 'answer']);
    expect(stopped.code).toBe(0);
    const token = /--resume (wfr_[0-9a-f]{32}) --agent-text @answer\.txt/.exec(stopped.stderr + stopped.stdout)?.[1];
    expect(token, stopped.stderr).toBeDefined();
    await writeFile(join(h.root, 'answer.txt'), 'hello from the agent');
    const done = await run(['workflow', '--resume', token ?? '', '--agent-text', '@answer.txt', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ status: 'done', output: { said: 'hello from the agent' } });

    const json = JSON.parse((await run(['workflow', 'acme/cli', 'answer', '--json'])).stdout) as { resumeToken: string };
    const wrongIds = await run(['workflow', 'acme/cli', 'ask', '--resume', json.resumeToken, '--agent-output', '"x"']);
    expect(wrongIds.code).toBe(2);
    expect(wrongIds.stderr).toMatch(/^error E_USAGE: --resume wfr_\w+ belongs to workflow answer of acme\/cli/m);
    const noAnswer = await run(['workflow', '--resume', json.resumeToken]);
    expect(noAnswer.stderr).toMatch(/^error E_USAGE: --resume needs the agent's answer: --agent-output/m);
    const resumed = await run(['workflow', 'acme/cli', 'answer', '--resume', json.resumeToken, '--agent-output', '"as JSON"', '--json']);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'done', output: { said: 'as JSON' } });
    const again = await run(['workflow', '--resume', json.resumeToken, '--agent-output', '"x"']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error E_NOT_FOUND: .*resumed already/m);
    expect((await run(['workflow', '--agent-text', 'x'])).stderr).toMatch(/^error E_USAGE: adcap workflow needs <id> and <workflowId>/m);
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

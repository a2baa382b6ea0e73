// Enable and disable: a disabled capability keeps its files, versions, grants and tool
// data; its tools, workflows and MCP tools are refused with E_DISABLED naming how to enable it;
// mcpServe does not list them; list marks it; updates still show and keep it disabled.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { grantedMcpTools, mcpServe, mcpToolName } from '../../../sdk/src/run/mcp.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { runWorkflow } from '../../../sdk/src/run/workflow.js';
import { rejection } from '../../helpers/errors.js';
import { LifecycleRegistry } from '../../helpers/lifecycle-registry.js';
import { nodeTool, RunHome } from '../run/run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

const fsRead = { id: 'fs:read' as const, scope: 'workspace', reason: 'Reads the files you point it at.' };
const netApi = { id: 'net:connect' as const, scope: 'api.example.com', reason: 'Looks things up online.' };
const approve = (): boolean => true;

let reg: LifecycleRegistry;

beforeAll(async () => {
  reg = await LifecycleRegistry.create();
  await reg.publishAll([
    { id: 'acme/app', version: '1.0.0', permissions: [fsRead], tool: true },
    { id: 'acme/app', version: '1.1.0', permissions: [fsRead], tool: true },
    { id: 'acme/app', version: '2.0.0', permissions: [fsRead, netApi], tool: true },
  ]);
});

describe('disable and enable', () => {
  it('keeps files, versions and grants, refuses its tools with E_DISABLED naming arc.enable, and runs them once enabled', async () => {
    const home = await reg.newHome();
    const changes: string[] = [];
    const arc = reg.arcotheon(home, { onEnablement: ({ id, enabled }) => void changes.push(`${id}:${enabled}`) });
    await arc.install('acme/app@1.0.0', { approve });
    await arc.install('acme/app@1.1.0', { approve });
    expect((await storeOf(arc).state('acme/app')).history).toEqual(['1.0.0']);
    const before = await storeOf(arc).state('acme/app');

    const done = await arc.disable('acme/app');
    expect(done).toMatchObject({ id: 'acme/app', enabled: false, changed: true, disabled: { by: 'user' } });
    const stateFile = JSON.parse(await readFile(join(home, 'packages', 'acme', 'app', 'state.json'), 'utf8')) as Record<string, unknown>;
    expect(stateFile['disabled']).toEqual({ at: expect.stringMatching(/^\d{4}-/), by: 'user' });
    const after = await storeOf(arc).state('acme/app');
    expect({ active: after.active, history: after.history, grants: after.grants, versions: Object.keys(after.versions) }).toEqual({
      active: before.active,
      history: before.history,
      grants: before.grants,
      versions: Object.keys(before.versions),
    });
    expect((await stat(join(home, 'packages', 'acme', 'app', '1.0.0', 'capability.json'))).isFile()).toBe(true);

    const list = await arc.list();
    expect(list.find((c) => c.id === 'acme/app')?.disabled).toMatchObject({ by: 'user' });

    const refused = await rejection(runTool(arc, 'acme/app', 'main', { hello: 1 }));
    expect(refused.code).toBe('E_DISABLED');
    expect(refused.message).toMatch(/acme\/app is disabled.*arc\.enable\("acme\/app"\)/);
    // The refusal is audited like any other.
    const audit = (await Promise.all((await readdir(join(home, 'audit'))).map((f) => readFile(join(home, 'audit', f), 'utf8')))).join('');
    expect(audit).toMatch(/"errorCode":"E_DISABLED"/);

    expect(await arc.disable('acme/app')).toMatchObject({ changed: false, enabled: false });
    expect(await arc.enable('acme/app')).toMatchObject({ changed: true, enabled: true });
    expect((await storeOf(arc).state('acme/app')).disabled).toBeUndefined();
    expect((await arc.list())[0]?.disabled).toBeUndefined();
    const ran = await runTool(arc, 'acme/app', 'main', { hello: 1 });
    expect(ran.output).toEqual({ hello: 1 });
    expect(changes).toEqual(['acme/app:false', 'acme/app:true']);
  });

  it('still shows updates for a disabled capability, and an update or a rollback keeps it disabled', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    await arc.install('acme/app@1.0.0', { approve });
    // Let updates move past the exact version it was installed at.
    await arc.install('acme/app@*', { approve });
    await arc.disable('acme/app');
    const plan = await arc.update(['acme/app']);
    // 2.0.0 needs net:connect: shown, not applied without approval.
    expect(plan).toMatchObject({ applied: false, needsApproval: true });
    expect(plan.plan.items.map((i) => `${i.id}@${i.version}`)).toEqual(['acme/app@2.0.0']);
    await arc.update(['acme/app'], { approve });
    const updated = await storeOf(arc).state('acme/app');
    expect(updated.active).toBe('2.0.0');
    expect(updated.disabled).toMatchObject({ by: 'user' });
    await arc.rollback('acme/app');
    expect((await storeOf(arc).state('acme/app')).disabled).toMatchObject({ by: 'user' });
  });

  it('reads a state file written before enable/disable existed as enabled, and refuses one with a malformed mark', async () => {
    const home = await reg.newHome();
    const arc = reg.arcotheon(home);
    await arc.install('acme/app@1.0.0', { approve });
    const file = join(home, 'packages', 'acme', 'app', 'state.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(Object.hasOwn(state, 'disabled')).toBe(false);
    expect((await arc.list())[0]).toMatchObject({ id: 'acme/app', version: '1.0.0' });
    await writeFile(file, JSON.stringify({ ...state, disabled: { at: 'now', by: 'someone' } }));
    expect((await rejection(storeOf(arc).state('acme/app'))).code).toBe('E_JSON');
  });

  it('says a capability that is not installed cannot be disabled or enabled', async () => {
    const arc = reg.arcotheon(await reg.newHome());
    expect((await rejection(arc.disable('acme/app'))).code).toBe('E_NOT_INSTALLED');
    expect((await rejection(arc.enable('acme/app'))).code).toBe('E_NOT_INSTALLED');
  });
});

describe('workflows and MCP of a disabled capability', () => {
  it('refuses its workflow with E_DISABLED, does not list its MCP tools, and refuses a call to one', async () => {
    const h = await RunHome.create();
    const arc = h.arc({ sandbox: { optOut: ['acme/flow'] } });
    await h.install(
      {
        id: 'acme/flow',
        tools: [nodeTool('echo', 'echo.mjs')],
        files: { 'tools/echo.mjs': 'echo.mjs' },
        workflows: [
          {
            'adcap-workflow': '1.0',
            id: 'twice',
            steps: [{ id: 'one', tool: 'echo', input: { text: 'hi' } }],
            output: { said: '{{steps.one.output.echoed.text}}' },
          },
        ],
      },
      arc,
    );
    expect((await runWorkflow(arc, 'acme/flow', 'twice', {})).status).toBe('done');
    expect((await grantedMcpTools(storeOf(arc), ['acme/flow'])).map((t) => t.mcp.name)).toEqual([mcpToolName('acme/flow', 'echo')]);

    await arc.disable('acme/flow');
    const refused = await rejection(runWorkflow(arc, 'acme/flow', 'twice', {}));
    expect(refused.code).toBe('E_DISABLED');
    expect(refused.message).toMatch(/arc\.enable\("acme\/flow"\)/);
    expect(await grantedMcpTools(storeOf(arc), ['acme/flow'])).toEqual([]);

    // Over the MCP wire: tools/list is empty and tools/call answers E_DISABLED.
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    let buffer = '';
    stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        lines.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
        buffer = buffer.slice(nl + 1);
      }
    });
    const server = await mcpServe(arc, ['acme/flow'], { stdin, stdout });
    const answer = async (id: number): Promise<Record<string, unknown>> => {
      for (let i = 0; i < 200; i++) {
        const found = lines.find((l) => l['id'] === id);
        if (found !== undefined) return found;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no answer to request ${id}`);
    };
    const send = (message: Record<string, unknown>): void => void stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
    });
    await answer(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list', params: {} });
    expect(((await answer(2))['result'] as { tools: unknown[] }).tools).toEqual([]);
    send({ id: 3, method: 'tools/call', params: { name: mcpToolName('acme/flow', 'echo'), arguments: { text: 'x' } } });
    const call = (await answer(3))['result'] as { isError: boolean; content: Array<{ text: string }> };
    expect(call.isError).toBe(true);
    expect(call.content[0]?.text).toMatch(/^E_DISABLED: acme\/flow is disabled.*arc\.enable\("acme\/flow"\)/);
    await server.close();

    await arc.enable('acme/flow');
    expect((await grantedMcpTools(storeOf(arc), ['acme/flow'])).length).toBe(1);

    // Policy: a capability the policy blocks is not listed either, even before applyPolicy.
    const path = join(h.root, 'policy.json');
    await writeFile(path, JSON.stringify({ policy: 1, blocked: ['acme/flow'] }));
    const managedArc = h.arc({ sandbox: { optOut: ['acme/flow'] }, policy: { env: { ARCOTHEON_POLICY: path } } });
    expect(await grantedMcpTools(storeOf(managedArc), ['acme/flow'])).toEqual([]);
  });
});

// run/ depends on RunContext, and doctor on DoctorContext, not on the Arcotheon
// class. Each is driven here through a view that has only the interface's members and throws on any
// other property, so a later change that reaches past the interface fails this test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../../sdk/src/run/context.js';
import { grantedMcpTools, mcpToolName } from '../../../sdk/src/run/mcp.js';
import { runTool } from '../../../sdk/src/run/run-tool.js';
import { runWorkflow } from '../../../sdk/src/run/workflow.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { runDoctor, type DoctorContext } from '../../../sdk/src/store/doctor.js';
import { nodeTool, RunHome } from './run-fixture.js';

let h: RunHome;
let arc: Arcotheon;

const flow = {
  'adcap-workflow': '1.0',
  id: 'once',
  inputs: { properties: { n: { type: 'integer', default: 3 } } },
  steps: [{ id: 'a', tool: 'echo', input: { n: '{{inputs.n}}' } }],
  output: { n: '{{steps.a.output.echoed.n}}' },
};

/** `view` behind a proxy that records what is read and throws on anything it does not have. */
function only<T extends object>(view: T, reached: Set<string>): T {
  return new Proxy(view, {
    get(target, key, receiver) {
      if (typeof key === 'string') {
        if (!Object.hasOwn(target, key)) throw new Error(`reached past the interface: ${key}`);
        reached.add(key);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

function runContextOf(a: Arcotheon): RunContext {
  return {
    home: a.home,
    cache: a.cache,
    sources: a.sources,
    authorize: a.authorize,
    sandboxChoice: a.sandboxChoice,
    checkTier: a.checkTier,
    toolDataQuota: a.toolDataQuota,
    state: (id) => a.state(id),
    readInstalledManifest: (id, version) => a.readInstalledManifest(id, version),
    installedDir: (id) => a.installedDir(id),
    sourcePolicy: (source) => a.sourcePolicy(source),
    policyInForce: () => a.policyInForce(),
  };
}

beforeAll(async () => {
  h = await RunHome.create();
  arc = h.arc();
  await h.install(
    { id: 'acme/flow', tools: [nodeTool('echo', 'echo.mjs')], workflows: [flow], files: { 'tools/echo.mjs': 'echo.mjs' } },
    arc,
  );
});
afterAll(async () => {
  await h.remove();
});

describe('RunContext', () => {
  it('runTool, runWorkflow and the MCP tool list need nothing of a store but RunContext', async () => {
    const reached = new Set<string>();
    const view = only(runContextOf(arc), reached);
    const ran = await runTool(view, 'acme/flow', 'echo', { text: 'hi' });
    expect(ran.output).toMatchObject({ echoed: { text: 'hi' }, tool: 'echo' });
    const result = await runWorkflow(view, 'acme/flow', 'once', {});
    expect(result).toMatchObject({ status: 'done', output: { n: 3 } });
    expect((await grantedMcpTools(view, ['acme/flow'])).map((t) => t.mcp.name)).toEqual([mcpToolName('acme/flow', 'echo')]);
    // What a run reads: the installed side, the policy, the cache and sources, the host's choices.
    for (const key of ['home', 'state', 'readInstalledManifest', 'policyInForce', 'sandboxChoice', 'sourcePolicy'])
      expect(reached).toContain(key);
  });
});

describe('DoctorContext', () => {
  it('doctor checks a home through DoctorContext alone', async () => {
    const reached = new Set<string>();
    const view: DoctorContext = only(
      {
        home: arc.home,
        cache: arc.cache,
        sources: arc.sources,
        authorize: arc.authorize,
        sandboxChoice: arc.sandboxChoice,
        readInstalledManifest: (id: string, version: string) => arc.readInstalledManifest(id, version),
      },
      reached,
    );
    const report = await runDoctor(view, {});
    expect(report.ok).toBe(true);
    expect(report.checked.packages).toBe(1);
    for (const key of ['home', 'cache', 'sandboxChoice']) expect(reached).toContain(key);
  });
});

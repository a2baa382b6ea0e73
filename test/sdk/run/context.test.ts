// run/ depends on RunContext, and doctor on DoctorContext, not on the Arcotheon
// class. Each is driven here through a view that has only the interface's members and throws on any
// other property, so a later change that reaches past the interface fails this test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../../sdk/src/run/context.js';
import { grantedMcpTools, mcpToolName } from '../../../sdk/src/run/mcp.js';
import { runToolIn } from '../../../sdk/src/run/run-tool.js';
import { runWorkflowIn } from '../../../sdk/src/run/workflow.js';
import type { Arcotheon } from '../../../sdk/src/store/arcotheon.js';
import { runDoctor, type DoctorContext } from '../../../sdk/src/store/doctor.js';
import { nodeTool, RunHome } from './run-fixture.js';
import { storeOf } from '../../../sdk/src/store/store-of.js';

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
  const store = storeOf(a);
  return {
    home: store.home,
    cache: store.cache,
    sources: store.sources,
    authorize: store.authorize,
    sandboxChoice: store.sandboxChoice,
    checkTier: store.checkTier,
    toolDataQuota: store.toolDataQuota,
    state: (id) => store.state(id),
    readInstalledManifest: (id, version) => store.readInstalledManifest(id, version),
    installedDir: (id) => store.installedDir(id),
    sourcePolicy: (source) => store.sourcePolicy(source),
    policyInForce: () => store.policyInForce(),
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
  it('runToolIn, runWorkflowIn and the MCP tool list need nothing of a store but RunContext', async () => {
    const reached = new Set<string>();
    const view = only(runContextOf(arc), reached);
    const ran = await runToolIn(view, 'acme/flow', 'echo', { text: 'hi' });
    expect(ran.output).toMatchObject({ echoed: { text: 'hi' }, tool: 'echo' });
    const result = await runWorkflowIn(view, 'acme/flow', 'once', {});
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
        home: storeOf(arc).home,
        cache: storeOf(arc).cache,
        sources: storeOf(arc).sources,
        authorize: storeOf(arc).authorize,
        sandboxChoice: storeOf(arc).sandboxChoice,
        readInstalledManifest: (id: string, version: string) => storeOf(arc).readInstalledManifest(id, version),
      },
      reached,
    );
    const report = await runDoctor(view, {});
    expect(report.ok).toBe(true);
    expect(report.checked.packages).toBe(1);
    for (const key of ['home', 'cache', 'sandboxChoice']) expect(reached).toContain(key);
  });
});

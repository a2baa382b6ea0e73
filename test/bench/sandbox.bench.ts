/**
 * Sandbox bench: a trivial node tool call (spawn a node script that
 * prints one line, wait for exit) through BubblewrapSandbox vs NoSandbox in the same run, 30
 * iterations each, interleaved so all see the same machine load (bubblewrap with the default
 * resource limits and without them). Each iteration includes
 * wrap() (the seccomp filter and bwrap's settings in unnamed files), the spawn and cleanup(). Target: median ratio under 1.3x.
 * The scoped-network variant (host proxy + in-sandbox forwarder, a second node start) is
 * reported without a target, and so is the floor of any bubblewrap sandbox here: the same tool
 * spawned under a bare `bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev`
 * (no wrap(), no confinement beyond the namespaces), in the same rounds.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BubblewrapSandbox } from '../../sdk/src/sandbox/bubblewrap.js';
import { NoSandbox } from '../../sdk/src/sandbox/none.js';
import { stdioFor, type Sandbox, type SandboxSpec } from '../../sdk/src/sandbox/sandbox.js';
import { registerBench } from './registry.js';

const ITERATIONS = 30;

/** The tool under a bare bwrap: what any bubblewrap sandbox costs at least (namespaces, a mount namespace, pid 1). */
function bareBwrapOnce(tool: string): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const args = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', process.execPath, tool];
    const child = spawn('bwrap', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && out === 'ok\n'
        ? resolve(Number(process.hrtime.bigint() - start) / 1e6)
        : reject(new Error(`bare bwrap exited ${code} with ${JSON.stringify(out)}`)),
    );
  });
}

async function callOnce(sandbox: Sandbox, spec: SandboxSpec): Promise<number> {
  const start = process.hrtime.bigint();
  const w = await sandbox.wrap(spec);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(w.command, w.args, { env: w.env, cwd: w.cwd, stdio: stdioFor(w, ['ignore', 'pipe', 'inherit']) });
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 && out === 'ok\n' ? resolve() : reject(new Error(`tool exited ${code} with ${JSON.stringify(out)}`)),
      );
    });
  } finally {
    await w.cleanup?.();
  }
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

registerBench({
  name: 'sandbox: trivial node tool call',
  async run(report) {
    const bwrap = new BubblewrapSandbox();
    if (!(await bwrap.available())) throw new Error('bubblewrap does not work on this machine; the sandbox bench needs it');
    const root = mkdtempSync(join(tmpdir(), 'adcap-sandbox-bench-'));
    try {
      const cap = join(root, 'cap');
      mkdirSync(cap);
      writeFileSync(join(cap, 'tool.mjs'), "process.stdout.write('ok\\n');\n");
      const spec = (grants: string[]): SandboxSpec => ({
        command: process.execPath,
        args: [join(cap, 'tool.mjs')],
        env: { PATH: process.env.PATH ?? '' },
        grants,
        capabilityDir: cap,
        dependencyDirs: [],
        readOnlyFiles: [],
        workspace: null,
        toolDataDir: null,
        tmpDir: join(root, 'run'),
        home: join(root, 'home'),
      });
      const none = new NoSandbox();
      const unlimited = new BubblewrapSandbox({ limits: false });
      // Warm-up: page cache, bwrap availability probe.
      await callOnce(none, spec([]));
      await callOnce(bwrap, spec([]));
      const plain: number[] = [];
      const boxed: number[] = [];
      const scoped: number[] = [];
      const boxedNoLimits: number[] = [];
      const bare: number[] = [];
      const loadBefore = load();
      await bareBwrapOnce(join(cap, 'tool.mjs'));
      for (let i = 0; i < ITERATIONS; i++) {
        plain.push(await callOnce(none, spec([])));
        boxed.push(await callOnce(bwrap, spec([])));
        boxedNoLimits.push(await callOnce(unlimited, spec([])));
        bare.push(await bareBwrapOnce(join(cap, 'tool.mjs')));
        if (i < 10) scoped.push(await callOnce(bwrap, spec(['net:connect:api.example.com'])));
      }
      const spread = (xs: number[]): string => {
        const s = [...xs].sort((a, b) => a - b);
        return `${(s[0] ?? 0).toFixed(0)} / ${median(xs).toFixed(0)} / ${(s.at(-1) ?? 0).toFixed(0)}`;
      };
      console.log(
        `  min/median/max ms: unsandboxed ${spread(plain)}; bubblewrap ${spread(boxed)}; without limits ${spread(boxedNoLimits)}; ` +
          `bare bwrap ${spread(bare)}; load ${loadBefore} -> ${load()}`,
      );
      const base = { label: 'unsandboxed', value: median(plain) };
      report({
        label: `bubblewrap with resource limits, median of ${ITERATIONS}`,
        value: median(boxed),
        unit: 'ms',
        baseline: base,
        target: 1.3,
      });
      report({
        label: `bubblewrap without resource limits, median of ${ITERATIONS}`,
        value: median(boxedNoLimits),
        unit: 'ms',
        baseline: base,
        target: 1.3,
      });
      report({
        label: `floor: the tool under a bare bwrap (namespaces only), median of ${ITERATIONS}`,
        value: median(bare),
        unit: 'ms',
        baseline: base,
      });
      report({ label: 'bubblewrap + scoped net:connect proxy, median of 10', value: median(scoped), unit: 'ms', baseline: base });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
});

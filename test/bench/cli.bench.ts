/**
 * `npm run bench -- cli`: what a person feels at the prompt, each command run as a child process
 * of the built bin (sdk/dist/cli/bin.js, with its compile cache warm) side by side with its anchor
 * in the same rounds (ours, then the anchor, BENCH_CLI_ROUNDS times, default 7), reporting
 * min / median / max of both and the ratio of the medians, with the load average before and after:
 *
 *   adcap --version                        vs node -e 0                                  <= 2x
 *   adcap list, a fresh home each round    vs node -e 0                                  <= 3x
 *   adcap search pdf, 20,000 / 100,000     vs a node script that reads, JSON.parses and
 *     capabilities (a remote added once)      filters the same catalogue file             <= 1.5x
 *   adcap run of a trivial node tool       vs the same tool under plain node, fed the
 *     (bubblewrap, nothing granted)           same call on stdin                          <= 2x
 *     and, beside it without a target, the floor of any CLI that starts a sandboxed tool:
 *     a node process that does nothing but start the tool in bwrap and wait for it
 *   MCP tools/call round trip through a    vs the same tool under plain node, started
 *     warm `adcap mcp` (the official MCP      from this process and fed the same call      <= 1.3x
 *     client, one call warmed up first)       (per call both start the tool's process)
 *
 * BENCH_CLI_ROUNDS and BENCH_CLI_SEARCH_SIZES (default 20000,100000; empty for none) change the work.
 *
 * The catalogues are synthetic (test/bench/registry-scale-child.ts build), signed by a root key of
 * their own and served over http on 127.0.0.1 while `adcap remote add` fetches them.
 */
import { execFile, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serveRegistry } from '../../sdk/src/registry/builder/serve.js';
import { registerBench, type BenchResult } from './registry.js';

const repo = join(import.meta.dirname, '..', '..');
const BIN = join(repo, 'sdk', 'dist', 'cli', 'bin.js');
const ROUNDS = Number(process.env['BENCH_CLI_ROUNDS'] ?? 7);
const MiB = 1024 * 1024;

interface Command {
  label: string;
  args: string[];
  input?: string;
  /** Runs untimed before the command, every round (a fresh home). */
  prepare?: () => Promise<void>;
  /** What stdout must hold, so a failing command is never timed as a fast one. */
  expect: RegExp;
  /**
   * Starts something in bubblewrap: what runs in its PID namespace is not waited for by bwrap's
   * parent, so its CPU time never reaches childrenCpuMs and none is printed (measured: a 300 ms busy
   * loop under bwrap counted 10 ms).
   */
  sandboxed?: true;
}

function runChild(command: Command): SpawnSyncReturns<string> {
  const [file, ...args] = command.args;
  const result = spawnSync(file!, args, {
    encoding: 'utf8',
    maxBuffer: 64 * MiB,
    ...(command.input === undefined ? {} : { input: command.input }),
  });
  if (result.status !== 0 || !command.expect.test(result.stdout)) {
    throw new Error(`${command.label} failed (${result.status}): ${result.stderr.slice(0, 2000)}${result.stdout.slice(0, 500)}`);
  }
  return result;
}

/** CPU time (user + system) of process `pid` itself, in ms (Linux: utime and stime of /proc/<pid>/stat). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time (user + system) of this process's children that have been waited for, in ms: Linux's
 * cutime and cstime (/proc/self/stat, in clock ticks of 10 ms). A child's own reaped children count
 * in it, so a command's figure covers everything it started (bwrap and the tool included).
 */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The fields after "pid (comm) ": state is field 3, cutime field 16 and cstime field 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** One run of `command` after its prepare: wall time and CPU time (see childrenCpuMs), in ms. */
async function timed(command: Command): Promise<{ wall: number; cpu: number }> {
  await command.prepare?.();
  const cpu = childrenCpuMs();
  const started = process.hrtime.bigint();
  runChild(command);
  return { wall: Number(process.hrtime.bigint() - started) / 1e6, cpu: childrenCpuMs() - cpu };
}

const stats = (xs: number[]): { min: number; median: number; max: number } => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return { min: s[0] ?? 0, median: s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2, max: s.at(-1) ?? 0 };
};

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * `ours` and `anchor` alternately (and `floor`, when given, a third in each round), one untimed
 * warm-up each (page cache, compile cache). Prints min/median/max of the wall times, the median
 * CPU times (less disturbed by the load than the wall times) and the load average.
 */
async function inRounds(ours: Command, anchor: Command, target?: number, floor?: Command): Promise<BenchResult[]> {
  const commands = floor === undefined ? [ours, anchor] : [ours, anchor, floor];
  for (const command of commands) await timed(command);
  const runs: Array<Array<{ wall: number; cpu: number }>> = commands.map(() => []);
  const before = load();
  for (let i = 0; i < ROUNDS; i++) for (const [j, command] of commands.entries()) runs[j]?.push(await timed(command));
  const wall = runs.map((r) => stats(r.map((t) => t.wall)));
  const cpu = runs.map((r) => stats(r.map((t) => t.cpu)).median);
  const f = (s: { min: number; median: number; max: number } | undefined): string =>
    s === undefined ? '' : `${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)}`;
  const line = (c: Command, j: number): string =>
    `${c.label}: min/median/max ${f(wall[j])} ms${c.sandboxed ? '' : `, CPU ${(cpu[j] ?? 0).toFixed(0)} ms`}`;
  console.log(`  ${commands.map(line).join('; ')}; load ${before} -> ${load()}`);
  const base = { label: anchor.label, value: wall[1]?.median ?? 0 };
  return commands
    .filter((c) => c !== anchor)
    .map((c) => ({
      label: `${c.label} (median of ${ROUNDS})`,
      value: wall[commands.indexOf(c)]?.median ?? 0,
      unit: 'ms',
      baseline: base,
      ...(c === ours && target !== undefined ? { target } : {}),
    }));
}

/** `ours` beside `anchor` (inRounds), the result of ours. */
async function sideBySide(ours: Command, anchor: Command, target?: number): Promise<BenchResult> {
  const [result] = await inRounds(ours, anchor, target);
  if (result === undefined) throw new Error('inRounds reported nothing');
  return result;
}

const adcap = (home: string, ...args: string[]): string[] => [process.execPath, BIN, '--home', home, ...args];

/** The anchor of search: read, JSON.parse and filter the catalogue, print the matches as adcap does (20 rows and a count). */
const ANCHOR_SEARCH = `
const { readFileSync } = require('node:fs');
const [file, q] = process.argv.slice(1);
const caps = JSON.parse(readFileSync(file, 'utf8')).payload.capabilities;
const hits = [];
for (const [id, c] of Object.entries(caps)) {
  const found = id.includes(q) || c.name.toLowerCase().includes(q) || c.summary.toLowerCase().includes(q)
    || c.keywords.some((k) => k.includes(q));
  if (found) hits.push(id + '@' + c.latest + '  ' + c.name + ' - ' + c.summary);
}
process.stdout.write(hits.slice(0, 20).join('\\n') + '\\n... and ' + (hits.length - 20) + ' more\\n');
`;

async function buildCatalogue(count: number, dir: string): Promise<{ publicKey: string }> {
  const result = spawnSync(
    process.execPath,
    ['--max-old-space-size=8192', '--import', 'tsx', join(import.meta.dirname, 'registry-scale-child.ts'), 'build', String(count), dir],
    {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 16 * MiB,
    },
  );
  if (result.status !== 0) throw new Error(`building a ${count}-entry catalogue failed: ${result.stderr}`);
  await mkdir(join(dir, 'v1'), { recursive: true });
  await copyFile(join(dir, 'catalog.json'), join(dir, 'v1', 'catalog.json'));
  return JSON.parse(await readFile(join(dir, 'root.json'), 'utf8')) as { publicKey: string };
}

/** The tool under plain node, started from this process and fed `call` on stdin, until it exits. */
function plainToolCall(entry: string, call: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && out.includes('"hi"') ? resolve() : reject(new Error(`the plain tool exited ${code}`))));
    child.stdin.end(call);
  });
}

/**
 * The tool under a bare bwrap (namespaces only: no wrap(), no limits, no checks), started from this
 * process and fed `call`: the floor of any sandboxed call, whoever makes it.
 */
function bareBwrapToolCall(entry: string, call: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', process.execPath, entry];
    const child = spawn('bwrap', args, { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && out.includes('"hi"') ? resolve() : reject(new Error(`the bare bwrap tool exited ${code}`))));
    child.stdin.end(call);
  });
}

/**
 * One tools/call round trip through a warm `adcap mcp` (started once, its tools listed and one
 * call made untimed), alternately with the plain tool call and the same tool under a bare bwrap
 * (the floor of a sandboxed call), ROUNDS * 2 times each.
 */
async function mcpWarmCall(home: string, entry: string, call: string): Promise<BenchResult[]> {
  const client = new Client({ name: 'adcap-cli-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--home', home, 'mcp', 'local/bench-echo'],
    stderr: 'pipe',
  });
  await client.connect(transport);
  try {
    const name = (await client.listTools()).tools.find((t) => t.name.endsWith('__echo'))?.name;
    if (name === undefined) throw new Error('adcap mcp lists no echo tool');
    const viaMcp = async (): Promise<void> => {
      const result = await client.callTool({ name, arguments: { text: 'hi' } });
      if (result.isError === true || !JSON.stringify(result.structuredContent).includes('"hi"')) {
        throw new Error(`adcap mcp answered ${JSON.stringify(result).slice(0, 500)}`);
      }
    };
    const time = async (fn: () => Promise<void>): Promise<number> => {
      const started = process.hrtime.bigint();
      await fn();
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    await viaMcp();
    await plainToolCall(entry, call);
    await bareBwrapToolCall(entry, call);
    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const before = load();
    // The server's own CPU (user + system, not its children's) over its timed calls: under load the
    // wall time is mostly waiting for a core; this is the work the server does per call.
    const serverPid = transport.pid;
    let serverCpuMs = 0;
    for (let i = 0; i < ROUNDS * 2; i++) {
      const cpuBefore = serverPid === null ? 0 : processCpuMs(serverPid);
      a.push(await time(viaMcp));
      if (serverPid !== null) serverCpuMs += processCpuMs(serverPid) - cpuBefore;
      b.push(await time(() => plainToolCall(entry, call)));
      c.push(await time(() => bareBwrapToolCall(entry, call)));
    }
    const x = stats(a);
    const y = stats(b);
    const z = stats(c);
    const f = (s: { min: number; median: number; max: number }): string =>
      `${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)}`;
    console.log(
      `  MCP tools/call via warm adcap mcp: min/median/max ${f(x)} ms; the tool under plain node: ${f(y)} ms; ` +
        `under a bare bwrap: ${f(z)} ms; load ${before} -> ${load()}; ` +
        `the server's own CPU ${(serverCpuMs / (ROUNDS * 2)).toFixed(1)} ms a call (clock ticks of 10 ms, summed over the calls)`,
    );
    const plain = { label: 'the same tool under plain node, started per call', value: y.median };
    return [
      {
        label: `MCP tools/call round trip through a warm adcap mcp (bubblewrap), median of ${ROUNDS * 2}`,
        value: x.median,
        unit: 'ms',
        baseline: plain,
        target: 1.3,
      },
      {
        label: `floor of a sandboxed call: the tool under a bare bwrap, median of ${ROUNDS * 2}`,
        value: z.median,
        unit: 'ms',
        baseline: plain,
      },
    ];
  } finally {
    await client.close();
  }
}

registerBench({
  name: 'cli: start-up, list, search and run against plain node',
  async run(report) {
    const work = await mkdtemp(join(tmpdir(), 'adcap-cli-bench-'));
    try {
      console.log(`  load average at the start: ${load()}; ${ROUNDS} rounds`);
      const nodeE0: Command = { label: 'node -e 0', args: [process.execPath, '-e', '0'], expect: /^$/ };
      // As a person types it: `adcap --version` alone (no --home), which the bin answers itself.
      report(
        await sideBySide({ label: 'adcap --version', args: [process.execPath, BIN, '--version'], expect: /^\d+\.\d+\.\d+/ }, nodeE0, 2),
      );

      const fresh = join(work, 'fresh');
      report(
        await sideBySide(
          {
            label: 'adcap list, fresh home',
            args: adcap(fresh, 'list'),
            prepare: () => rm(fresh, { recursive: true, force: true }),
            expect: /nothing installed/,
          },
          nodeE0,
          3,
        ),
      );

      // BENCH_CLI_SEARCH_SIZES=20000 (or empty: no search case) picks the catalogue sizes.
      const sizes = (process.env['BENCH_CLI_SEARCH_SIZES'] ?? '20000,100000').split(',').filter((n) => n.trim() !== '');
      for (const count of sizes.map(Number)) {
        const dir = join(work, `registry-${count}`);
        const { publicKey } = await buildCatalogue(count, dir);
        const searchHome = join(work, `home-${count}`);
        const served = await serveRegistry(dir);
        try {
          // Asynchronously: the registry is served from this process.
          await promisify(execFile)(
            process.execPath,
            [BIN, '--home', searchHome, 'remote', 'add', 'big', served.remoteUrl, '--root-key', publicKey],
            {
              maxBuffer: 16 * MiB,
            },
          );
        } finally {
          await served.close();
        }
        const stored = join(searchHome, 'remotes', 'big', 'catalog.json');
        const bytes = (await readFile(stored)).length;
        const n = count.toLocaleString('en-US');
        report(
          await sideBySide(
            {
              label: `adcap search pdf, ${n} capabilities (${(bytes / MiB).toFixed(1)} MiB)`,
              args: adcap(searchHome, 'search', 'pdf'),
              expect: /more/,
            },
            { label: 'node: read, JSON.parse, filter', args: [process.execPath, '-e', ANCHOR_SEARCH, stored, 'pdf'], expect: /more/ },
            1.5,
          ),
        );
        const rss = spawnSync('/usr/bin/time', ['-f', '%M', ...adcap(searchHome, 'search', 'pdf')], {
          encoding: 'utf8',
          maxBuffer: 64 * MiB,
        });
        const anchorRss = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, '-e', ANCHOR_SEARCH, stored, 'pdf'], {
          encoding: 'utf8',
        });
        const kib = (r: SpawnSyncReturns<string>): number => Number(r.stderr.trim().split('\n').at(-1));
        report({
          label: `adcap search pdf, ${n}: peak RSS (the node script: ${(kib(anchorRss) / 1024).toFixed(0)} MiB)`,
          value: kib(rss) / 1024,
          unit: 'MiB',
        });
        await rm(dir, { recursive: true, force: true });
      }

      // A trivial node tool, installed from a sideloaded package, run in bubblewrap with nothing granted.
      const src = join(work, 'echo-cap');
      await mkdir(join(src, 'tools'), { recursive: true });
      await copyFile(join(repo, 'test', 'fixtures', 'tools', 'echo.mjs'), join(src, 'tools', 'echo.mjs'));
      await writeFile(
        join(src, 'capability.json'),
        JSON.stringify({
          adcap: '1.0',
          id: 'local/bench-echo',
          version: '1.0.0',
          name: 'Echo',
          summary: 'Echoes its input, for the CLI bench.',
          compat: { agents: { arcotheon: '*' } },
          permissions: [],
          tools: [
            {
              name: 'echo',
              description: 'Echoes its input.',
              runtime: { type: 'node', entry: 'tools/echo.mjs' },
              inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
              outputSchema: { type: 'object', required: ['echoed'] },
            },
          ],
        }),
      );
      const runHome = join(work, 'home-run');
      const pkg = join(work, 'echo.adcap');
      runChild({ label: 'build', args: adcap(runHome, 'build', src, '-o', pkg), expect: /./ });
      runChild({ label: 'install', args: adcap(runHome, 'install', pkg, '--yes', '--allow-unsigned'), expect: /./ });
      const call = `${JSON.stringify({ type: 'call', tool: 'echo', input: { text: 'hi' }, context: {} })}\n`;
      // Beside it, in the same rounds, the floor of any CLI that runs a tool sandboxed: its own node
      // start, then bwrap and the tool's node start, with no work of its own (no checks, no bundle,
      // no audit line).
      const floor = `const r = require('node:child_process').spawnSync('bwrap', ['--unshare-all', '--die-with-parent',
        '--ro-bind', '/', '/',
        '--proc', '/proc', '--dev', '/dev', process.execPath, process.argv[1]], { input: process.argv[2], encoding: 'utf8' });
        process.stdout.write(r.stdout); process.exitCode = r.status;`;
      const runResults = await inRounds(
        {
          label: 'adcap run (bubblewrap) of a trivial node tool',
          args: adcap(runHome, 'run', 'local/bench-echo', 'echo', '--input', '{"text":"hi"}'),
          expect: /hi/,
          sandboxed: true,
        },
        { label: 'the same tool under plain node', args: [process.execPath, join(src, 'tools', 'echo.mjs')], input: call, expect: /hi/ },
        2,
        {
          label: 'floor: node that only starts the tool in bwrap',
          args: [process.execPath, '-e', floor, join(src, 'tools', 'echo.mjs'), call],
          expect: /hi/,
          sandboxed: true,
        },
      );
      for (const result of runResults) report(result);

      for (const result of await mcpWarmCall(runHome, join(src, 'tools', 'echo.mjs'), call)) report(result);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  },
});

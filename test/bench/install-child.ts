/**
 * Child process of the archive bench's in-process install (archive.bench.ts): one process for all
 * its rounds, so an install is timed in a process that has done nothing else, not in the bench's
 * own, whose heap the package build and the source generation grew first (measured: the same
 * install used 2.02 s of CPU after a build of the package in the same process against 1.67 s
 * without, median of 6 interleaved rounds at load 6-8).
 *
 *   install-child.ts <home> <remote JSON>
 *
 * Reads one command a line on stdin and answers each with one JSON line on stdout:
 *   prepare   a fresh home (the folder removed and made again), its registry read once: `plan`,
 *             untimed as a round, answered with that first read's { seconds, cpu }
 *   install   the install of bench/archive into it: { seconds, cpu }
 * CPU is this process's (user + system, every thread), in seconds.
 */
import { mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { RemoteConfig } from '../../sdk/src/registry/remotes.js';
import { Arcotheon } from '../../sdk/src/store/arcotheon.js';
import { removeTree } from '../../sdk/src/util/fs-tree.js';

const [home, remoteJson] = process.argv.slice(2);
if (home === undefined || remoteJson === undefined) throw new Error('usage: install-child.ts <home> <remote JSON>');
const remote = JSON.parse(remoteJson) as RemoteConfig;

const arcotheon = (): Arcotheon =>
  new Arcotheon({ home, host: { platform: 'linux-x64', agent: { id: 'arcotheon', version: '1.0.0' } }, remotes: [remote] });

async function timed(fn: () => Promise<unknown>): Promise<{ seconds: number; cpu: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

for await (const line of createInterface({ input: process.stdin })) {
  let answer: { seconds: number; cpu: number };
  if (line === 'prepare') {
    await removeTree(home);
    await mkdir(home);
    answer = await timed(() => arcotheon().plan('bench/archive'));
  } else if (line === 'install') {
    answer = await timed(() => arcotheon().install('bench/archive', { approve: () => true }));
  } else throw new Error(`install-child: unknown command ${JSON.stringify(line)}`);
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
await removeTree(home);

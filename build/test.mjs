#!/usr/bin/env node
// `npm test`: everything CI checks, scheduled so the cores stay busy.
// - The static checks and the build do not depend on each other: they run as many at a time as
//   the machine has cores (each is one mostly single-threaded process), the build first.
// - The unit tests start as soon as the build is done (three of them run the built bin or pack the
//   SDK), beside the static checks still running: the test files spend part of their time waiting
//   on child processes and the disk, which the checks fill.
// - The end-to-end specs run last, when everything else has passed.
// A check's output is printed whole when it ends, so output of steps running side by side does not
// interleave; the test runs print as they go. A failed step fails the run: steps already running
// finish (every failure among them is reported), no new step starts. The run ends with how long
// each step took. `node build/test.mjs --only lint,build` runs some steps.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `after`: steps that must have passed first ('*': all the others). `live`: a test run, printed as it goes. */
const STEPS = [
  { script: 'build' },
  { script: 'lint' },
  { script: 'typecheck:node' },
  { script: 'format:check' },
  { script: 'typecheck:renderer' },
  { script: 'api:check' },
  { script: 'electronegativity' },
  { script: 'lines' },
  { script: 'test:unit', after: ['build'], live: true },
  // Last: started beside the unit tests they only compete for the same two cores (measured: 268 s in
  // all instead of 257 s).
  { script: 'test:e2e', after: ['*'], live: true },
];

const argIndex = process.argv.indexOf('--only');
const only = argIndex === -1 ? null : new Set(process.argv[argIndex + 1]?.split(',').filter(Boolean) ?? []);
if (only !== null) {
  const known = STEPS.map((s) => s.script);
  const unknown = [...only].filter((name) => !known.includes(name));
  if (unknown.length > 0 || only.size === 0) {
    const also = unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : '';
    console.error(`test: --only takes a comma-separated list of ${known.join(', ')}${also}`);
    process.exit(2);
  }
}
const steps = STEPS.filter((s) => only === null || only.has(s.script));
const chosen = new Set(steps.map((s) => s.script));
const needs = (step) =>
  (step.after ?? []).flatMap((a) => (a === '*' ? [...chosen].filter((n) => n !== step.script) : [a])).filter((n) => chosen.has(n));

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Runs `npm run <script>`; unless `live`, its output is kept and printed when it ends. */
function run(step) {
  const started = performance.now();
  const live = step.live === true;
  if (live) console.log(`\n== ${step.script}`);
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', step.script], {
      cwd: root,
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: live ? process.env : { ...process.env, FORCE_COLOR: process.env['FORCE_COLOR'] ?? (process.stdout.isTTY ? '1' : '0') },
      shell: process.platform === 'win32',
    });
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.stderr?.on('data', (chunk) => chunks.push(chunk));
    const finish = (code, error) => {
      const ms = performance.now() - started;
      const ok = code === 0 && error === undefined;
      if (!live) {
        process.stdout.write(`\n── ${step.script} ${ok ? 'passed' : 'FAILED'} (${seconds(ms)}) ──\n`);
        process.stdout.write(Buffer.concat(chunks));
      }
      if (error !== undefined) process.stdout.write(`test: could not run ${step.script}: ${error.message}\n`);
      resolve({ script: step.script, ok, ms });
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code, undefined));
  });
}

const lanes = Math.max(1, availableParallelism());
const started = performance.now();
const results = [];
const passed = new Set();
const running = new Map();
let failed = false;
const waiting = [...steps];
for (;;) {
  // Start what may start: its steps passed, and for a check a free lane (test runs take none: they
  // spread over the cores themselves).
  if (!failed) {
    for (const step of [...waiting]) {
      if (!needs(step).every((n) => passed.has(n))) continue;
      const checks = [...running.values()].filter((r) => !r.step.live).length;
      if (step.live !== true && checks >= lanes) continue;
      waiting.splice(waiting.indexOf(step), 1);
      running.set(step.script, { step, done: run(step) });
    }
  }
  if (running.size === 0) break;
  const result = await Promise.race([...running.values()].map((r) => r.done));
  running.delete(result.script);
  results.push(result);
  if (result.ok) passed.add(result.script);
  else failed = true;
}

console.log('\n== npm test: time per step (checks and the unit tests overlap)');
for (const r of results) console.log(`  ${r.ok ? 'ok    ' : 'FAILED'} ${r.script.padEnd(18)} ${seconds(r.ms).padStart(8)}`);
for (const step of waiting) console.log(`  not run ${step.script}`);
console.log(`  total ${seconds(performance.now() - started)}${failed ? ', FAILED' : ''}`);
process.exit(failed || waiting.length > 0 ? 1 : 0);

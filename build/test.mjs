#!/usr/bin/env node
// `npm test` (issue 15 item 10): everything CI checks, in three stages.
//   1. The static checks and the build, which do not depend on each other, as many at a time as
//      the machine has cores (each is one mostly single-threaded process): typecheck, lint,
//      format:check, lines, api:check, electronegativity, build.
//   2. The unit tests (vitest spreads them over the cores itself). Three of them run the built bin
//      or pack the SDK, so they wait for the build.
//   3. The end-to-end specs (against the build).
// A step's output is printed whole when it ends, so the output of steps running side by side does
// not interleave. A failed step fails the run: the other steps of its stage still finish (every
// failure of a stage is reported at once), later stages do not start. The run ends with how long
// each step took. `node build/test.mjs --only lint,build` runs some steps (in their stages).
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// Longest first, so the short ones fill the gaps at the end of the stage.
const STAGES = [['lint', 'format:check', 'typecheck', 'build', 'api:check', 'electronegativity', 'lines'], ['test:unit'], ['test:e2e']];

const only = process.argv.includes('--only') ? new Set(process.argv[process.argv.indexOf('--only') + 1]?.split(',') ?? []) : null;
if (only !== null) {
  const known = new Set(STAGES.flat());
  const unknown = [...only].filter((name) => !known.has(name));
  if (unknown.length > 0 || only.size === 0) {
    const also = unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : '';
    console.error(`test: --only takes a comma-separated list of ${[...known].join(', ')}${also}`);
    process.exit(2);
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Runs `npm run <script>`; with `capture`, its output is kept and printed when it ends. */
function run(script, capture) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], {
      cwd: root,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: capture ? { ...process.env, FORCE_COLOR: process.env['FORCE_COLOR'] ?? (process.stdout.isTTY ? '1' : '0') } : process.env,
      shell: process.platform === 'win32',
    });
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.stderr?.on('data', (chunk) => chunks.push(chunk));
    const finish = (code, error) => {
      const ms = performance.now() - started;
      const ok = code === 0 && error === undefined;
      if (capture) {
        process.stdout.write(`\n── ${script} ${ok ? 'passed' : 'FAILED'} (${seconds(ms)}) ──\n`);
        process.stdout.write(Buffer.concat(chunks));
      }
      if (error !== undefined) process.stdout.write(`test: could not run ${script}: ${error.message}\n`);
      resolve({ script, ok, ms });
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code, undefined));
  });
}

/** Runs the steps of a stage, at most `lanes` at a time. */
async function stage(scripts, lanes) {
  const results = [];
  const queue = [...scripts];
  const capture = scripts.length > 1 && lanes > 1;
  if (capture) console.log(`\n== ${scripts.join(', ')} (${Math.min(lanes, scripts.length)} at a time)`);
  const lane = async () => {
    for (let script = queue.shift(); script !== undefined; script = queue.shift()) results.push(await run(script, capture));
  };
  await Promise.all(Array.from({ length: Math.min(lanes, scripts.length) }, lane));
  return results;
}

const started = performance.now();
const results = [];
let failed = false;
for (const scripts of STAGES) {
  const chosen = scripts.filter((name) => only === null || only.has(name));
  if (chosen.length === 0) continue;
  if (chosen.length === 1) console.log(`\n== ${chosen[0]}`);
  const done = await stage(chosen, Math.max(1, availableParallelism()));
  results.push(...done);
  if (done.some((r) => !r.ok)) {
    failed = true;
    break;
  }
}

console.log('\n== npm test: time per step (steps of the first stage ran side by side)');
for (const r of results) console.log(`  ${r.ok ? 'ok    ' : 'FAILED'} ${r.script.padEnd(18)} ${seconds(r.ms).padStart(8)}`);
console.log(`  total ${seconds(performance.now() - started)}${failed ? ', FAILED' : ''}`);
process.exit(failed ? 1 : 0);

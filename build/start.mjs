#!/usr/bin/env node
// `npm start`: until the desktop app lands, the quick start shows the CLI on this machine.
// It prints the adcap version and its commands, so a fresh checkout can see that the SDK built.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../sdk/dist/cli/main.js', import.meta.url));
const result = spawnSync(process.execPath, [cli, ...(process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['--help'])], { stdio: 'inherit' });
process.exit(result.status ?? 1);

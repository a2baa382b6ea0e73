// Marks the built CLI entry executable so `node_modules/.bin/adcap` runs after `npm install`.
import { chmodSync } from 'node:fs';
for (const file of process.argv.slice(2)) chmodSync(file, 0o755);

/**
 * Extracts a package read-only in a process of its own (for a test that runs it as another user):
 * `read-package-child.ts <package> <target>` prints `{ "entries": n }` once readPackage passed.
 */
import { readPackage } from '../../sdk/src/format/package-read.js';

const [file, target] = process.argv.slice(2);
if (file === undefined || target === undefined) throw new Error('usage: read-package-child.ts <package> <target>');
const read = await readPackage(file, { extractTo: target, readOnly: true });
process.stdout.write(`${JSON.stringify({ entries: read.entries.length })}\n`);

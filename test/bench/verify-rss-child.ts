/**
 * Child process for the archive bench: verifies one package (or, with "--baseline", only loads
 * the module) and prints its peak RSS in bytes, so the parent can compare package sizes.
 */
import { readPackage } from '../../sdk/src/format/package-read.js';

const [file, mode] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: verify-rss-child.ts <file.adcap> [--baseline]');
if (mode !== '--baseline') await readPackage(file);
console.log(JSON.stringify({ maxRss: process.resourceUsage().maxRSS * 1024 }));

// scan_contract: finds clauses worth a second look in a contract (a .txt or .md file in the
// workspace) using the clause-pattern library, an entitled resource of this pro capability.
// The host obtains authorisation for the resource (spec §12), verifies it against the pin in
// capability.json and passes its local path in context.resources; this tool never downloads.
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { serveTools, ToolError } from './protocol.mjs';

const RISK_ORDER = { high: 0, medium: 1, low: 2 };

async function scanContract(input, context) {
  if (typeof context.workspace !== 'string') throw new ToolError('Choose the folder that holds the contract as the workspace for this run.');
  if (isAbsolute(input.path)) throw new ToolError(`"${input.path}" is absolute; give a path relative to the workspace folder.`);
  const file = resolve(context.workspace, input.path);
  const rel = relative(context.workspace, file);
  if (rel === '..' || rel.startsWith(`..${sep}`)) throw new ToolError(`"${input.path}" is outside the workspace folder.`);
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile()) throw new ToolError(`There is no file "${input.path}" in the workspace.`);
  if (info.size > 5 * 1024 * 1024) throw new ToolError(`"${input.path}" is over 5 MiB; export the contract as plain text first.`);

  const libraryPath = context.resources?.['clause-patterns'];
  if (typeof libraryPath !== 'string') throw new ToolError('The clause-pattern library is not available; this is a pro capability, so check that your plan includes acme-legal-pro.');
  const library = JSON.parse(await readFile(libraryPath, 'utf8'));

  const lines = (await readFile(file, 'utf8')).split(/\r\n|\r|\n/);
  // Join each line with the next one so a clause broken across two lines still matches.
  const findings = [];
  for (const pattern of library.patterns) {
    const regex = new RegExp(pattern.regex, 'i');
    for (let i = 0; i < lines.length; i++) {
      const window = `${lines[i]} ${lines[i + 1] ?? ''}`;
      if (!regex.test(window)) continue;
      // Report the line where the match starts.
      const line = regex.test(lines[i]) ? i + 1 : i + 2;
      findings.push({ clause: pattern.id, risk: pattern.risk, line, excerpt: (lines[line - 1] ?? '').trim().slice(0, 240), advice: pattern.advice });
      break; // one finding per clause type is enough to point the reader at it
    }
  }
  findings.sort((a, b) => RISK_ORDER[a.risk] - RISK_ORDER[b.risk] || a.line - b.line);
  const counts = { high: 0, medium: 0, low: 0 };
  for (const f of findings) counts[f.risk]++;
  return { path: input.path, findings, counts, disclaimer: 'Automated pattern matching, not legal advice: have a lawyer review important contracts.' };
}

serveTools({ scan_contract: scanContract });
